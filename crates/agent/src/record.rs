//! Persisting a turn round by round: the loop hands each finished round to a
//! [`RoundRecorder`], which stores it whole or not at all, so a stop at any instant never
//! leaves an assistant message with tool calls but without their results. A tool's images
//! are kept as files beside the chat's attachments before its round is stored (`images.rs`).

use std::path::PathBuf;
use std::sync::Arc;

use preflight_protocol::chat::{Attachment, ImagePart, Message};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::tasks::TaskList;
use preflight_store::{Store, StoreError};

use crate::images::keep_tool_images;

/// Stores the rounds of a turn. `record` gets one round: an assistant message with its
/// tool calls followed by one tool message per call, or a final answer alone.
pub trait RoundRecorder: Send + Sync {
    fn record(&self, messages: &[Message]) -> Result<(), StoreError>;

    /// Stores a compaction record (DESIGN §13) beside the rounds it covers.
    fn record_compaction(&self, record: &Message) -> Result<(), StoreError>;

    /// Keeps the images tool message `message` of tool `tool` carries, before its round is
    /// recorded, so that later turns show them again; what it kept, to list on the message.
    /// By default nothing is kept (the message's text still describes each image).
    fn keep_images(
        &self,
        message: &MessageId,
        tool: &str,
        images: &[ImagePart],
    ) -> Vec<Attachment> {
        let _ = (message, tool, images);
        Vec::new()
    }
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
    /// The chat's attachments folder, where tools' images are kept; `None` keeps none.
    images: Option<PathBuf>,
}

impl ChatLedger {
    pub fn new(store: Arc<Store>, chat_id: ChatId) -> ChatLedger {
        ChatLedger { store, chat_id, images: None }
    }

    /// Keeps the images tools return in `dir`, the chat's attachments folder.
    pub fn with_images(self, dir: PathBuf) -> ChatLedger {
        ChatLedger { images: Some(dir), ..self }
    }
}

impl RoundRecorder for ChatLedger {
    fn record(&self, messages: &[Message]) -> Result<(), StoreError> {
        self.store.append_messages(&self.chat_id, messages)
    }

    fn record_compaction(&self, record: &Message) -> Result<(), StoreError> {
        self.store.append_compaction(&self.chat_id, record)
    }

    fn keep_images(
        &self,
        message: &MessageId,
        tool: &str,
        images: &[ImagePart],
    ) -> Vec<Attachment> {
        match &self.images {
            Some(dir) => keep_tool_images(dir, message, tool, images),
            None => Vec::new(),
        }
    }
}

impl TaskListSource for ChatLedger {
    fn task_list(&self) -> Result<TaskList, StoreError> {
        self.store.task_list(&self.chat_id)
    }
}
