//! The chat's data model: chats, stored messages in the shapes of DESIGN §2, phases.

mod message;
mod model;

pub use message::{Message, MessageBody, Role, ToolCall};
pub use model::{Chat, ChatSettings, Phase, PlanPending};
