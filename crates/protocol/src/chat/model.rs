//! A chat, its settings and the per-chat session state of plan mode.

use serde::{Deserialize, Serialize};

use crate::ids::{ChatId, MessageId};
use crate::planner::Question;

use super::Worktree;

/// A chat as the API shows it (without messages or state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Chat {
    pub id: ChatId,
    pub title: String,
    /// The workspace folder the chat's tools work in; none means no filesystem tools.
    pub workspace: Option<String>,
    pub plan_mode: bool,
    pub auto_approve: bool,
    /// Write the approved plan as `.dwp/plans/` files into the workspace.
    pub save_plans: bool,
    /// The folders or files, relative to the workspace, that planning is limited to
    /// (DESIGN §14); empty means the whole workspace.
    #[serde(default)]
    pub scope: Vec<String>,
    /// The model the chat's executor talks to (DESIGN §15); null: `[provider]` of
    /// config.toml.
    #[serde(default)]
    pub model: Option<ModelChoice>,
    /// The model the chat plans with; null: `[planner]`, else `[provider]`.
    #[serde(default)]
    pub planner_model: Option<ModelChoice>,
    pub created_at: String,
    pub updated_at: String,
    /// Where this chat was forked from (DESIGN §15 "Fork"); absent for a chat that is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub forked_from: Option<ForkedFrom>,
    /// The chat's own git worktree (DESIGN §18); absent: it works in `workspace` itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub worktree: Option<Worktree>,
}

/// The chat a fork was made from, and the point: a message of it or one of its checkpoints
/// (neither: the whole chat). The title is the original's when the fork was made, so a fork
/// whose original was deleted (or renamed since) still says where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ForkedFrom {
    pub chat_id: ChatId,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub message_id: Option<MessageId>,
    /// The checkpoint's number (`n`) in the original chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub checkpoint_id: Option<u32>,
    /// What became of the workspace's files; absent when the original had no workspace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub files: Option<ForkFiles>,
    /// The message in which the fork says so in words (the window shows it in its own).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub notice_id: Option<MessageId>,
}

/// What a fork did with its original's workspace files.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ForkFiles {
    /// The fork works in the original's workspace: the files are as that chat left them,
    /// and what either changes the other sees.
    Shared { workspace: String },
    /// The checkpoint's files were written into a folder of the user's choice, the fork's
    /// own workspace; the original's was not touched.
    Copied {
        workspace: String,
        #[cfg_attr(feature = "ts", ts(type = "number"))]
        files: u32,
    },
    /// The original worked in a worktree of its own (DESIGN §18): the fork got one too, on
    /// its own branch, made from the original's files as they were when it was forked; what
    /// either changes, the other does not see. `repository` is the user's.
    Worktree { repository: String },
}

/// A model a chat chose (DESIGN §15): a provider `config.toml` names (`default` for
/// `[provider]`, `NAME` for `[providers.NAME]`) and one of its models.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct ModelChoice {
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 64))]
    pub provider: String,
    #[cfg_attr(feature = "openapi", schema(min_length = 1, max_length = 200))]
    pub model: String,
}

impl std::fmt::Display for ModelChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.model, self.provider)
    }
}

/// What a new chat is created with; the adapters fill unset fields from `config.toml`.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatSettings {
    pub title: String,
    pub workspace: Option<String>,
    pub plan_mode: bool,
    pub auto_approve: bool,
    pub save_plans: bool,
    pub scope: Vec<String>,
}

/// Where a chat is in the plan-mode lifecycle (the `phase` of `plan_status` events).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    Planning,
    Questions,
    AwaitingApproval,
    Executing,
    Idle,
}

impl Phase {
    pub fn as_str(self) -> &'static str {
        match self {
            Phase::Planning => "planning",
            Phase::Questions => "questions",
            Phase::AwaitingApproval => "awaiting_approval",
            Phase::Executing => "executing",
            Phase::Idle => "idle",
        }
    }

    pub fn parse(text: &str) -> Option<Phase> {
        [Phase::Planning, Phase::Questions, Phase::AwaitingApproval, Phase::Executing, Phase::Idle]
            .into_iter()
            .find(|phase| phase.as_str() == text)
    }
}

/// The question card that waits for answers: `state.plan_pending` of DESIGN §2.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanPending {
    /// The original task, as the user sent it.
    pub user_text: String,
    pub files: Vec<String>,
    /// The active card's questions; `answer` is filled as the user answers.
    pub questions: Vec<Question>,
    /// Every answer given so far, across rounds, as `"<question>\nUser's answer: <answer>"`.
    pub answers: Vec<String>,
    /// The question round this card belongs to (1, 2, 3).
    pub round: u32,
}
