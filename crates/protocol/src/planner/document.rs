//! The planner's typed output (questions, plan) and the plan document stored for a chat.

use serde::{Deserialize, Deserializer, Serialize};

use super::comment::PlanComment;
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

/// One step of a plan; `files`, `depends_on` and `check` are seed 001's (DESIGN §14).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanStep {
    // Never blank: the parser and the plan editor drop steps without an action.
    #[cfg_attr(feature = "openapi", schema(pattern = r"\S"))]
    pub action: String,
    pub expected: String,
    /// Paths relative to the workspace that this step touches.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub files: Vec<String>,
    /// 1-based numbers of earlier steps that must be done first.
    #[serde(default, skip_serializing_if = "Vec::is_empty", deserialize_with = "step_numbers")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<u32>>", optional))]
    pub depends_on: Vec<u32>,
    /// A shell command that proves the step, run by Preflight in the sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub check: Option<String>,
}

/// Step numbers as JSON numbers: an integral float (`3.0`) is the number it names, as JSON
/// Schema counts it (a `PATCH …/plan/doc` may send one); anything else is refused.
fn step_numbers<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<u32>, D::Error> {
    use serde::de::Error;
    let numbers = Vec::<serde_json::Number>::deserialize(deserializer)?;
    let step = |number: &serde_json::Number| {
        let integral = number.as_f64().filter(|f| f.fract() == 0.0 && *f >= 0.0);
        let whole = number.as_u64().or(integral.map(|f| f as u64));
        whole.and_then(|n| u32::try_from(n).ok())
    };
    numbers
        .iter()
        .map(|number| {
            step(number).ok_or_else(|| D::Error::custom(format!("{number} is not a step number")))
        })
        .collect()
}

/// How much work the planner expects the plan to be (seed 001's `estimated_complexity`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Complexity {
    Low,
    Medium,
    High,
}

/// The files a plan will create and modify, relative to the workspace (DESIGN §14).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlannedFiles {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub create: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub modify: Vec<String>,
}

impl PlannedFiles {
    pub fn is_empty(&self) -> bool {
        self.create.is_empty() && self.modify.is_empty()
    }
}

/// Seed 001's optional judgement of a plan (DESIGN §14), shared by the parsed plan, the plan
/// document and the user's edit. Every field may be empty; empty fields are not serialised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanJudgement {
    /// How the plan goes about it, in a sentence or two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub approach: Option<String>,
    /// Other approaches that were weighed.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub alternatives: Vec<String>,
    /// What could go wrong, and known limits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub risks: Vec<String>,
    /// Named `planned_files` because a plan document's `files` are the user's attachments.
    #[serde(default, skip_serializing_if = "PlannedFiles::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<PlannedFiles>", optional))]
    pub planned_files: PlannedFiles,
    /// The tests the plan will write.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub tests: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub complexity: Option<Complexity>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Library {
    pub name: String,
    pub purpose: String,
    pub usage: String,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum SandboxPolicy {
    Reuse,
    /// What a plan that names no policy gets.
    #[default]
    Create,
}

/// The sandbox as the planner proposes it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SandboxSpec {
    pub policy: SandboxPolicy,
    pub notes: String,
}

/// A normalised `plan` fence: what the planner proposes, before it becomes a document.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Plan {
    pub title: String,
    pub aim: String,
    pub steps: Vec<PlanStep>,
    pub libraries: Vec<Library>,
    pub sandbox: SandboxSpec,
    #[serde(flatten)]
    pub judgement: PlanJudgement,
    /// What normalisation dropped and why (a `depends_on` naming no earlier step, a path
    /// outside the workspace, an item over a limit), for the card to show.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
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
    /// Approach, alternatives, risks, planned files, tests and complexity (DESIGN §14).
    #[serde(flatten)]
    pub judgement: PlanJudgement,
    /// What normalisation dropped and why, shown small on the card.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<String>>", optional))]
    pub notes: Vec<String>,
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
    /// The user's comments on this revision, sent with its rejection (DESIGN §16); the next
    /// revision is the planner's answer to them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<PlanComment>>", optional))]
    pub comments: Vec<PlanComment>,
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

#[cfg(test)]
mod tests {
    use super::PlanStep;
    use serde_json::json;

    #[test]
    fn a_steps_dependencies_are_whole_numbers_an_integral_float_included() {
        let step = |depends_on| json!({"action": "a", "expected": "b", "depends_on": depends_on});
        let read = |value| serde_json::from_value::<PlanStep>(value).map(|s| s.depends_on);
        assert_eq!(read(step(json!([1, 2.0, 14074630.0]))).unwrap(), [1, 2, 14_074_630]);
        for bad in [json!([1.5]), json!([-1]), json!([5e20]), json!(["1"])] {
            assert!(read(step(bad.clone())).is_err(), "{bad}");
        }
        assert_eq!(read(json!({"action": "a", "expected": "b"})).unwrap(), Vec::<u32>::new());
    }
}
