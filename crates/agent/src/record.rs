//! Persisting a turn round by round: the loop hands each finished round to a
//! [`RoundRecorder`], which stores it whole or not at all, so a stop at any instant never
//! leaves an assistant message with tool calls but without their results.

use std::sync::Arc;

use preflight_protocol::chat::Message;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::TaskList;
use preflight_store::{Store, StoreError};

/// Stores the rounds of a turn. `record` gets one round: an assistant message with its
/// tool calls followed by one tool message per call, or a final answer alone.
pub trait RoundRecorder: Send + Sync {
    fn record(&self, messages: &[Message]) -> Result<(), StoreError>;

    /// Stores a compaction record (DESIGN §13) beside the rounds it covers.
    fn record_compaction(&self, record: &Message) -> Result<(), StoreError>;
}

/// Where the loop reads the chat's task list, for the `[state]` tail and the nag.
pub trait TaskListSource: Send + Sync {
    fn task_list(&self) -> Result<TaskList, StoreError>;
}

/// A chat in the store: records rounds with `append_messages` (one transaction each) and
/// reads the chat's task list.
#[derive(Clone)]
pub struct ChatLedger {
    store: Arc<Store>,
    chat_id: ChatId,
}

impl ChatLedger {
    pub fn new(store: Arc<Store>, chat_id: ChatId) -> ChatLedger {
        ChatLedger { store, chat_id }
    }
}

impl RoundRecorder for ChatLedger {
    fn record(&self, messages: &[Message]) -> Result<(), StoreError> {
        self.store.append_messages(&self.chat_id, messages)
    }

    fn record_compaction(&self, record: &Message) -> Result<(), StoreError> {
        self.store.append_compaction(&self.chat_id, record)
    }
}

impl TaskListSource for ChatLedger {
    fn task_list(&self) -> Result<TaskList, StoreError> {
        self.store.task_list(&self.chat_id)
    }
}
