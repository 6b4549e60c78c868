//! Chats a previous process left mid-turn (it crashed or was killed): settled at start-up
//! so that every chat waits for the user again. Questions stay pending, approved plans stay
//! approved, task lists stay as they were; an executor stopped with tasks left says so
//! (`state.stopped`, reason `interrupted`), so the user can Continue.

use preflight_protocol::chat::Phase;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ExecutorStop, StopReason};
use preflight_store::{Store, StoreError, Tx};

pub fn settle_interrupted_turns(store: &Store) -> Result<(), StoreError> {
    for chat in store.list_chats()? {
        match store.state(&chat.id)?.phase {
            Phase::Planning => {
                store.settle_interrupted_planning(&chat.id)?;
            }
            Phase::Executing => store.write(|tx| settle_interrupted_execution(tx, &chat.id))?,
            Phase::Questions | Phase::AwaitingApproval | Phase::Idle => {}
        }
    }
    Ok(())
}

/// An executor turn that will never end by itself (its process is gone, or an export caught
/// it running): the turn ends, with the stop recorded (`interrupted`) when tasks are left.
pub(super) fn settle_interrupted_execution(
    tx: &mut Tx<'_>,
    chat_id: &ChatId,
) -> Result<(), StoreError> {
    settle_execution(tx, chat_id, StopReason::Interrupted)
}

/// [`settle_interrupted_execution`] with the stop's `reason` (a fork's is `forked`).
pub(super) fn settle_execution(
    tx: &mut Tx<'_>,
    chat_id: &ChatId,
    reason: StopReason,
) -> Result<(), StoreError> {
    let list = tx.task_list(chat_id)?;
    if list.has_work_left() {
        let now = preflight_dwp::now_rfc3339();
        let stop = ExecutorStop::of(reason, None, &list, &now);
        tx.record_stop(chat_id, &stop)?;
    }
    tx.finish_turn(chat_id, list.is_finished())
}
