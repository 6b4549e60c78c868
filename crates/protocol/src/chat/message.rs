//! A stored chat message, serialised exactly in the shapes of DESIGN §2.

use serde::{Deserialize, Serialize};

use super::{Attachment, Notice};
use crate::ids::MessageId;
use crate::planner::{PlanDocument, Question};
use crate::tasks::{ExecutorStop, StopReason};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Role {
    User,
    Assistant,
    Tool,
    Compaction,
}

/// A message of a chat. `body` carries the role and the role's fields.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Message {
    pub id: MessageId,
    pub created_at: String,
    #[serde(flatten)]
    pub body: MessageBody,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum MessageBody {
    /// The user's task or a later message; with `plan_answer` a synthetic answer to a
    /// question card (never counted as a user turn, never sent to the executor as such).
    User {
        content: String,
        #[serde(default)]
        files: Vec<String>,
        /// The files of `files` as copied for the chat (DESIGN §2; `chat/attachment.rs`).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(as = "Option<Vec<Attachment>>", optional))]
        attachments: Vec<Attachment>,
        #[serde(default)]
        plan_answer: bool,
        /// Set on a Continue: the executor resumed after it stopped with tasks left. The
        /// window shows it as "Continue", not as typed words, with `content` folded away.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        resume: Option<Resume>,
        /// Set on a Continue: the stop it resumed from. The model reads it as Preflight's
        /// record (data: the open tasks, a failing check's output), never as the user's
        /// words; `content` is the same in words, for the window.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        stopped: Option<Box<ExecutorStop>>,
        /// Set on a restore: the user put the workspace back to a checkpoint (issue 31). The
        /// window shows it as a restore entry; the model reads Preflight's record of it
        /// (the kept files' names as data), never `content` as the user's words.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        restored: Option<Restored>,
        /// Set on revision feedback (DESIGN §16): the user's own words and how many comments
        /// went with them. `content` is the request the planner read; the window shows this.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        review: Option<ReviewNote>,
        /// Set when the message was a server's prompt (`/NAME args`, DESIGN §17): what the
        /// user typed and the prompt it named. `content` is the prompt's expansion (and the
        /// user's lines after the first), which the model reads; the window shows this.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        typed: Option<TypedPrompt>,
    },
    /// A question card (`questions` set), a plan card (`plan` set), an executor round
    /// (`tool_calls` non-empty) or a final answer.
    Assistant {
        content: String,
        questions: Option<Vec<Question>>,
        plan: Option<Box<PlanDocument>>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(as = "Option<Vec<ToolCall>>", optional))]
        tool_calls: Vec<ToolCall>,
        /// Set when Preflight itself speaks: a planner that failed, a provider that refused,
        /// a fallback (`notice.rs`); `content` is then the notice's English text.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        notice: Option<Notice>,
    },
    /// The result of one tool call of the assistant message before it.
    Tool {
        tool_call_id: String,
        name: String,
        content: String,
        is_error: bool,
        /// The images the tool returned, kept in the chat's attachments folder so that later
        /// turns show them to the model again (`content` describes each in a line).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        #[cfg_attr(feature = "ts", ts(as = "Option<Vec<Attachment>>", optional))]
        attachments: Vec<Attachment>,
    },
    /// A compaction record (DESIGN §13): the summary that stands, in the model's view, for
    /// the messages `covers[0]..=covers[1]` of that view. Those messages stay stored.
    Compaction { content: String, covers: [MessageId; 2] },
}

/// What a Continue resumed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Resume {
    /// Why the executor had stopped.
    pub reason: StopReason,
    /// Continued by `[executor] auto_continue`, not by the user.
    pub auto: bool,
}

/// What the user sent a plan back with: their words (none when they sent comments only)
/// and how many comments on revision `revision` went along.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ReviewNote {
    pub revision: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub feedback: Option<String>,
    pub comments: u32,
}

/// What the user typed to use an MCP server's prompt, and which prompt it was.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TypedPrompt {
    /// The message as typed (`/args-prompt city=Paris` and any lines after it).
    pub text: String,
    pub server: String,
    pub prompt: String,
}

/// What a restore put back: the checkpoint, and the files it wrote, deleted and kept.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Restored {
    /// The checkpoint the workspace went back to.
    pub checkpoint: u32,
    /// The task it was taken before, when it was a task's start ("before task 2").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub before_task: Option<u32>,
    pub written: Vec<String>,
    pub deleted: Vec<String>,
    /// Files the user changed since the latest checkpoint, left as the user had them.
    pub kept: Vec<String>,
}

/// One tool call as the model made it; `arguments` is the JSON text the model produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

impl Message {
    pub fn role(&self) -> Role {
        match self.body {
            MessageBody::User { .. } => Role::User,
            MessageBody::Assistant { .. } => Role::Assistant,
            MessageBody::Tool { .. } => Role::Tool,
            MessageBody::Compaction { .. } => Role::Compaction,
        }
    }

    pub fn content(&self) -> &str {
        match &self.body {
            MessageBody::User { content, .. }
            | MessageBody::Assistant { content, .. }
            | MessageBody::Tool { content, .. }
            | MessageBody::Compaction { content, .. } => content,
        }
    }

    /// A user turn that counts: the user's own words, not a synthetic answer.
    pub fn is_user_turn(&self) -> bool {
        matches!(self.body, MessageBody::User { plan_answer: false, .. })
    }
}
