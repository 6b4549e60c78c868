//! Chats a previous process left mid-turn (it crashed or was killed): settled at start-up
//! so that every chat waits for the user again. Questions stay pending, approved plans stay
//! approved, task lists stay as they were; an executor stopped with tasks left says so
//! (`state.stopped`, reason `interrupted`), so the user can Continue.

use preflight_protocol::chat::Phase;
use preflight_protocol::tasks::{ExecutorStop, StopReason};
use preflight_store::{Store, StoreError};

pub fn settle_interrupted_turns(store: &Store) -> Result<(), StoreError> {
    for chat in store.list_chats()? {
        match store.state(&chat.id)?.phase {
            Phase::Planning => {
                store.settle_interrupted_planning(&chat.id)?;
            }
            Phase::Executing => {
                let list = store.task_list(&chat.id)?;
                let finished = list.is_finished();
                store.write(|tx| {
                    if list.has_work_left() {
                        let now = preflight_dwp::now_rfc3339();
                        let stop = ExecutorStop::of(StopReason::Interrupted, None, &list, &now);
                        tx.record_stop(&chat.id, &stop)?;
                    }
                    tx.finish_turn(&chat.id, finished)
                })?;
            }
            Phase::Questions | Phase::AwaitingApproval | Phase::Idle => {}
        }
    }
    Ok(())
}
