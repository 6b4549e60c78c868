//! The planner's typed output (questions, plan) and the plan document stored for a chat.

use serde::{Deserialize, Serialize};

use crate::ids::QuestionId;

/// One clarifying question of a card. `answer` stays null until the user gives one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Question {
    pub id: QuestionId,
    pub question: String,
    pub options: Vec<String>,
    pub answer: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanStep {
    // Never blank: the parser and the plan editor drop steps without an action.
    #[cfg_attr(feature = "openapi", schema(pattern = r"\S"))]
    pub action: String,
    pub expected: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Library {
    pub name: String,
    pub purpose: String,
    pub usage: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SandboxPolicy {
    Reuse,
    Create,
}

/// The sandbox as the planner proposes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    pub policy: SandboxPolicy,
    pub notes: String,
}

/// A normalised `plan` fence: what the planner proposes, before it becomes a document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub title: String,
    pub aim: String,
    pub steps: Vec<PlanStep>,
    pub libraries: Vec<Library>,
    pub sandbox: SandboxSpec,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Approval {
    Pending,
    Approved,
    /// Approved by the chat's auto-approve setting rather than by the user.
    PreApproved,
    Rejected,
}

/// The sandbox of a plan document: the proposal plus where it lives and whether it exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Sandbox {
    pub policy: SandboxPolicy,
    pub notes: String,
    /// `{workspace}/.sandbox`, or null for a chat without a workspace.
    pub dir: Option<String>,
    pub exists: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanContext {
    pub workspace_path: Option<String>,
    pub context7_available: bool,
}

/// The plan stored as a chat's plan (DESIGN §3). Each planner answer and each user edit
/// makes a new revision; `approval` changes in place.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanDocument {
    /// Readable markdown of the whole plan, as the plan card's `content` shows it.
    pub text: String,
    pub title: String,
    pub aim: String,
    pub steps: Vec<PlanStep>,
    pub libraries: Vec<Library>,
    pub sandbox: Sandbox,
    /// Always null: a plan document never carries questions (kept for seed 003's shape).
    pub questions: Option<Vec<Question>>,
    pub files: Vec<String>,
    pub context: PlanContext,
    pub created_at: String,
    pub approval: Approval,
    pub revision: u32,
    /// Who made this revision: the planner, the user's edit, or the executor's change that
    /// the user approved (DESIGN §12). Revisions stored before it was kept read as the
    /// planner's.
    #[serde(default)]
    pub author: RevisionAuthor,
    /// The user allowed this plan's code to run unconfined when approving it, because the
    /// sandbox could not confine runs on this machine (DESIGN §11). Later revisions keep it.
    #[serde(default)]
    pub run_unconfined: bool,
}

/// Who made a plan revision.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum RevisionAuthor {
    #[default]
    Planner,
    User,
    /// The executor asked for it; the user (or the chat's auto-approve) approved it.
    Executor,
}
