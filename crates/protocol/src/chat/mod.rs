//! The chat's data model: chats, stored messages in the shapes of DESIGN §2, phases.

mod attachment;
mod image;
mod message;
mod model;
mod notice;
mod worktree;

pub use attachment::{attachments_note, human_size, Attachment};
pub use image::{
    base64_decoded_len, image_extension, image_media_type, ImagePart, PastedImage, MAX_IMAGE_BYTES,
};
pub use message::{
    Message, MessageBody, Restored, Resume, ReviewNote, Role, ToolCall, TypedPrompt,
};
pub use model::{Chat, ChatSettings, ForkFiles, ForkedFrom, ModelChoice, Phase, PlanPending};
pub use notice::Notice;
pub use worktree::{MergeMode, Worktree, WorktreeState, BRANCH_PREFIX};
