//! Everything stored for one chat, read in one transaction.

use preflight_protocol::chat::{Chat, Message};
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{PlanChange, TaskList};
use serde::{Deserialize, Serialize};

use super::error::StoreError;
use super::{ChatState, Store, Tx};

/// A chat with its messages, state, plan revisions and task list, as of one instant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatSnapshot {
    pub chat: Chat,
    pub messages: Vec<Message>,
    pub state: ChatState,
    /// Oldest first; the last one is `state.plan`.
    pub revisions: Vec<PlanDocument>,
    pub task_list: TaskList,
    /// The executor's requests to change the plan, oldest first.
    #[serde(default)]
    pub changes: Vec<PlanChange>,
}

impl Tx<'_> {
    pub fn snapshot(&self, chat_id: &ChatId) -> Result<ChatSnapshot, StoreError> {
        Ok(ChatSnapshot {
            chat: self.chat(chat_id)?,
            messages: self.messages(chat_id)?,
            state: self.state(chat_id)?,
            revisions: self.plan_revisions(chat_id)?,
            task_list: self.task_list(chat_id)?,
            changes: self.plan_changes(chat_id)?,
        })
    }
}

impl Store {
    /// Everything stored for the chat, consistent with itself (one read transaction).
    pub fn snapshot(&self, chat_id: &ChatId) -> Result<ChatSnapshot, StoreError> {
        self.read(|tx| tx.snapshot(chat_id))
    }
}
