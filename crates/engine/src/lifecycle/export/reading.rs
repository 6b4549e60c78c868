//! What both exports read from the store, in one read transaction: the chat and its parts
//! but the messages ([`head`]), then the messages a page at a time ([`each_message`]), so a
//! long chat is never held in memory whole.

use std::io;

use preflight_protocol::chat::Message;
use preflight_protocol::ids::ChatId;
use preflight_store::{StoreError, Tx};

use super::format::{ExportHead, ExportedChat, ExportedState, FORMAT};
use crate::lifecycle::error::ApiError;

/// Messages read from the store at a time.
const PAGE: usize = 256;

/// The buffer a writer gathers its small pieces in before they reach the caller's writer.
pub(super) const BUFFER: usize = 64 * 1024;

/// Why an export could not be written.
#[derive(Debug, thiserror::Error)]
pub(super) enum WriteError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("writing the export: {0}")]
    Io(#[from] io::Error),
    #[error("writing the export: {0}")]
    Json(#[from] serde_json::Error),
}

impl From<WriteError> for ApiError {
    fn from(error: WriteError) -> ApiError {
        match error {
            WriteError::Store(error) => error.into(),
            other => ApiError::internal(other.to_string()),
        }
    }
}

/// The export's head: every part but the messages, stamped `now`.
pub(super) fn head(tx: &Tx<'_>, chat_id: &ChatId, now: &str) -> Result<ExportHead, StoreError> {
    let chat = tx.chat(chat_id)?;
    let state = tx.state(chat_id)?;
    let task_list = tx.task_list(chat_id)?;
    Ok(ExportHead {
        format: FORMAT,
        exported_at: now.to_owned(),
        exported_by: format!("Preflight {}", env!("CARGO_PKG_VERSION")),
        chat: ExportedChat::of(&chat),
        state: ExportedState {
            phase: state.phase,
            plan_pending: state.plan_pending,
            plans_again: tx.plans_again(chat_id)?,
        },
        plan_revisions: tx.plan_revisions(chat_id)?,
        task_list: (!task_list.tasks.is_empty()).then_some(task_list),
        changes: tx.plan_changes(chat_id)?,
        stops: tx.stop_log(chat_id)?,
        completion: state.completion,
        model_calls: tx.model_calls(chat_id)?,
    })
}

/// Calls `each` with every message of the chat, oldest first, a page read at a time.
pub(super) fn each_message(
    tx: &Tx<'_>,
    chat_id: &ChatId,
    mut each: impl FnMut(&Message) -> Result<(), WriteError>,
) -> Result<(), WriteError> {
    let mut after = None;
    loop {
        let page = tx.messages_after_seq(chat_id, after, PAGE)?;
        for (_, message) in &page {
            each(message)?;
        }
        match page.last() {
            Some((seq, _)) if page.len() == PAGE => after = Some(*seq),
            _ => return Ok(()),
        }
    }
}
