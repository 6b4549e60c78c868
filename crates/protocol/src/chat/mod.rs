//! The chat's data model: chats, stored messages in the shapes of DESIGN §2, phases.

mod attachment;
mod message;
mod model;
mod notice;

pub use attachment::{attachments_note, human_size, Attachment};
pub use message::{Message, MessageBody, Restored, Resume, Role, ToolCall};
pub use model::{Chat, ChatSettings, ModelChoice, Phase, PlanPending};
pub use notice::Notice;
