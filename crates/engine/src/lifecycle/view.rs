//! What the API shows of a chat: the chat, its messages and its plan-mode state.

use preflight_mcp::confinement::UnconfinedNotice;
use preflight_protocol::chat::{Chat, Message, Phase, PlanPending};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{Completion, ExecutorStop, PlanChange};
use preflight_protocol::usage::ChatUsage;
use serde::Serialize;

/// `GET /v1/chats/{id}`: the chat's fields, `messages` (DESIGN §2 shapes) and `state`.
/// `messages` is the latest page of the chat's messages (or those from the one asked for);
/// `messages_cursor` pages back through the older ones.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatView {
    #[serde(flatten)]
    pub chat: Chat,
    pub messages: Vec<Message>,
    /// Pass as `before` to `GET /v1/chats/{id}/messages` for the messages older than
    /// `messages`; absent when `messages` starts at the chat's first.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub messages_cursor: Option<String>,
    pub state: StateView,
    /// What the chat's model calls used and cost, planning and execution apart, and how
    /// full the context was at the last call (DESIGN §15).
    pub usage: ChatUsage,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct StateView {
    pub phase: Phase,
    pub plan_pending: Option<PlanPending>,
    pub plan: Option<PlanDocument>,
    /// The plan's completion record (DESIGN §12), once its steps are all finished.
    pub completion: Option<Completion>,
    /// Why the executor's last turn ended with tasks left (the stop card), until the work
    /// goes on: a Continue, a message, or the list cleared.
    pub stopped: Option<ExecutorStop>,
    /// The executor's requests to change the approved plan, oldest first, with their answers.
    pub changes: Vec<PlanChange>,
    /// Set when the chat's code sandbox would not confine runs on this machine: why, and
    /// whether approving needs the user's "run unconfined" (DESIGN §11). Absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub unconfined: Option<UnconfinedNotice>,
    /// Whether the executor's model can call tools. False on the embedded model: a plan's
    /// steps cannot be carried out there, and the plan card says so before approval.
    pub executor_calls_tools: bool,
}
