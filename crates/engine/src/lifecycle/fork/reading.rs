//! What a fork reads of its original, inside the transaction that stores the fork: the
//! point to cut at (the whole chat, a message's, a checkpoint's) and what it holds there.
//! A message or checkpoint that is not the chat's is the request's fault (400), and so is
//! one stored before Preflight kept points (it cannot say how the chat stood there).

use preflight_protocol::ids::{ChatId, MessageId};
use preflight_store::{StoreError, Tx};

use super::cut::{at_checkpoint, ForkSource};
use crate::lifecycle::error::{ApiError, ErrorCode};

/// Where a fork cuts its original.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cut {
    Whole,
    Message(MessageId),
    Checkpoint(u32),
}

/// The original `chat_id` up to `cut`.
pub(super) fn source(tx: &Tx<'_>, chat_id: &ChatId, cut: &Cut) -> Result<ForkSource, ApiError> {
    let chat = tx.chat(chat_id)?;
    let (state, task_list, through) = match cut {
        Cut::Whole => (tx.point_state(chat_id)?, tx.task_list(chat_id)?, i64::MAX),
        Cut::Message(message_id) => {
            let point = match tx.point_of_message(chat_id, message_id) {
                Err(StoreError::NotFound { .. }) => {
                    return Err(ApiError::bad_request(format!(
                        "message {message_id} is not a message of chat {chat_id}"
                    )))
                }
                found => found?.ok_or_else(|| unrecorded(&format!("message {message_id}")))?,
            };
            (point.state, point.task_list, point.seq)
        }
        Cut::Checkpoint(n) => {
            let checkpoint = tx.checkpoint(chat_id, *n)?.ok_or_else(|| {
                ApiError::bad_request(format!("chat {chat_id} has no checkpoint {n}"))
            })?;
            let unknown = || unrecorded(&format!("checkpoint {n}"));
            let id = tx.checkpoint_point(chat_id, *n)?.ok_or_else(unknown)?;
            let point = tx.point(chat_id, id)?.ok_or_else(unknown)?;
            let (state, tasks) = at_checkpoint(point.state, checkpoint.tasks);
            (state, tasks, point.seq)
        }
    };
    let messages = tx.messages_after_seq(chat_id, None, usize::MAX)?;
    let messages = messages.into_iter().filter(|(seq, _)| *seq <= through).collect();
    Ok(ForkSource {
        model_calls: tx.model_calls_through(chat_id, state.model_calls)?,
        revisions: tx.plan_revisions(chat_id)?,
        changes: tx.plan_changes(chat_id)?,
        points: tx.points_through(chat_id, through)?,
        chat,
        messages,
        state,
        task_list,
    })
}

/// A point Preflight has no record of: the chat was stored by an older version there, or
/// imported whole.
fn unrecorded(what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::ForkUnrecorded,
        format!(
            "Preflight has no record of how this chat stood at {what} (it was stored by an older \
         version, imported, or edited since): fork the whole chat, or from a later message"
        ),
    )
}
