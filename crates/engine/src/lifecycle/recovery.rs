//! Chats a previous process left mid-turn (it crashed or was killed): settled at start-up
//! so that every chat waits for the user again. Questions stay pending, approved plans stay
//! approved, task lists stay as they were.

use crate::chat::Phase;
use crate::store::{Store, StoreError};

pub fn settle_interrupted_turns(store: &Store) -> Result<(), StoreError> {
    for chat in store.list_chats()? {
        match store.state(&chat.id)?.phase {
            Phase::Planning => {
                store.settle_interrupted_planning(&chat.id)?;
            }
            Phase::Executing => {
                let finished = store.task_list(&chat.id)?.is_finished();
                store.finish_turn(&chat.id, finished)?;
            }
            Phase::Questions | Phase::AwaitingApproval | Phase::Idle => {}
        }
    }
    Ok(())
}
