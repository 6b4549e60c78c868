//! The events of a chat (DESIGN §7): one stream per chat, the same over SSE and in the
//! desktop app. `delta` carries executor tokens only; a quiet (planner) turn sends none.

use preflight_mcp::Question;
use preflight_protocol::chat::{Message, Phase};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::MessageId;
use preflight_protocol::tasks::{Completion, ExecutorStop, PlanChange, Task};
use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Event {
    PlanStatus {
        phase: Phase,
        text: String,
    },
    /// The planner at work: its draft is shown only once it is a card, so the chat is told
    /// how many words it has written so far and how many times it looked at the workspace.
    Drafting {
        words: u32,
        looked_at: u32,
    },
    /// A message as it was stored.
    Message {
        message: Message,
    },
    Delta {
        message_id: MessageId,
        text: String,
    },
    Tool {
        message_id: MessageId,
        name: String,
        #[cfg_attr(feature = "ts", ts(type = "unknown"))]
        args: serde_json::Value,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        result: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        #[cfg_attr(feature = "ts", ts(optional))]
        error: Option<String>,
    },
    /// The whole task list after a change; empty when the list was closed. Its wire name
    /// is `plan` (DESIGN §7).
    #[serde(rename = "plan")]
    TaskList {
        tasks: Vec<Task>,
    },
    /// A change request of the executor, when it is asked for and when it is answered
    /// (DESIGN §12).
    PlanChange {
        change: PlanChange,
    },
    /// The executor's turn ended with tasks left: why, and which (`state.stopped`).
    ExecutorStopped {
        stopped: ExecutorStop,
    },
    /// The plan's completion record, when its last step finished (DESIGN §12).
    Completion {
        completion: Completion,
    },
    Error {
        code: ErrorCode,
        message: String,
    },
    /// An MCP server asks the user something during execution: a form, or a page to open.
    Elicitation {
        elicitation: Elicitation,
    },
    /// The question was answered, or its call ended; `action` is `accept`, `decline` or
    /// `cancel`.
    ElicitationClosed {
        id: String,
        action: String,
    },
}

impl Event {
    /// The SSE `event:` name and the Tauri event name.
    pub fn name(&self) -> &'static str {
        match self {
            Event::PlanStatus { .. } => "plan_status",
            Event::Drafting { .. } => "drafting",
            Event::Message { .. } => "message",
            Event::Delta { .. } => "delta",
            Event::Tool { .. } => "tool",
            Event::TaskList { .. } => "plan",
            Event::PlanChange { .. } => "plan_change",
            Event::ExecutorStopped { .. } => "executor_stopped",
            Event::Completion { .. } => "completion",
            Event::Error { .. } => "error",
            Event::Elicitation { .. } => "elicitation",
            Event::ElicitationClosed { .. } => "elicitation_closed",
        }
    }
}

/// A question waiting for the user, as listed by `GET /v1/chats/{id}/elicitations`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Elicitation {
    pub id: String,
    #[cfg_attr(feature = "openapi", schema(value_type = Object))]
    pub question: Question,
}
