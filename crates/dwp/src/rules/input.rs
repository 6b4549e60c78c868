//! What the plan files are made from, in this crate's own terms: the approved plan
//! (`PlanInput`) and the tracker's task list (`TrackedTask`). The engine converts its planner
//! and tracker types into these, so the crate never depends on the engine.

use crate::rules::documents::{AmendKind, Authority};
use crate::rules::evidence::GateInput;

/// The plan as the user approved it (or not yet): what README.md is rendered from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanInput {
    pub title: String,
    pub aim: String,
    pub steps: Vec<StepInput>,
    pub libraries: Vec<LibraryInput>,
    pub approval: PlanApproval,
    /// What could go wrong, as the plan said; may be empty.
    pub risks: Vec<String>,
    /// The rest of the plan's judgement (seed 001, DESIGN §14), each field optional: how
    /// the plan goes about it, what else was weighed, the files it will create and modify,
    /// the tests it will write, how much work it expects.
    pub approach: Option<String>,
    pub alternatives: Vec<String>,
    pub planned_files: PlannedFilesInput,
    pub tests: Vec<String>,
    pub complexity: Option<Complexity>,
    /// The user's request that made the plan, as Preflight has it, for PROMPTS.md; `None`
    /// when the caller did not hand it in (PROMPTS.md then says so).
    pub prompt: Option<String>,
}

/// The files a plan will create and modify, relative to the workspace.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannedFilesInput {
    pub create: Vec<String>,
    pub modify: Vec<String>,
}

/// How much work the planner expects the plan to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Complexity {
    Low,
    Medium,
    High,
}

impl Complexity {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Complexity::Low => "low",
            Complexity::Medium => "medium",
            Complexity::High => "high",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepInput {
    pub action: String,
    pub expected: String,
    /// The shell command that proves the step, when the plan gave one.
    pub check: Option<String>,
    /// Paths relative to the workspace that the step touches.
    pub files: Vec<String>,
    /// 1-based numbers of earlier steps that must be done first.
    pub depends_on: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LibraryInput {
    pub name: String,
    pub purpose: String,
    pub usage: String,
}

/// The planner's verdict on the plan; only an approved plan is materialised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlanApproval {
    Pending,
    Approved,
    /// Approved by the chat's auto-approve setting rather than by the user.
    PreApproved,
    Rejected,
}

/// One task of the tracker's list (`turn_plan`), as a sync reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrackedTask {
    pub id: u32,
    pub title: String,
    pub phase: Option<String>,
    pub status: TrackedStatus,
    /// The executor's one-line outcome (done or dropped).
    pub outcome: Option<String>,
    /// The validation run a `done` carried.
    pub gate: Option<GateInput>,
    /// Whether a drop of this task needs nobody's confirmation: the executor added it
    /// itself (it leaves the plan as its own), or the user approved the drop already. Any
    /// other drop is `blocked` until the user confirms it.
    pub drop_settled: DropSettled,
}

/// How a dropped task leaves the plan files.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum DropSettled {
    /// It waits for the user's confirmation (`blocked`).
    #[default]
    No,
    /// The executor's own task: `skipped` as its drop.
    OwnTask,
    /// A plan step whose drop the user approved: `skipped` by the user.
    Approved,
}

/// The tracker's statuses (seed 000), not the seed 002 words of `state.json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrackedStatus {
    Pending,
    Active,
    Done,
    Dropped,
}

/// An approved change of the plan (DESIGN §12) as the engine hands it in, to be written as
/// an amendment record before the task list that carries it is synced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmendmentInput {
    pub kind: AmendKind,
    /// The tasks it changes: the one step of a drop or a rewording, the open steps a
    /// replacement takes out (the tasks it adds arrive with the next sync).
    pub tasks: Vec<u32>,
    /// The executor's reason for asking.
    pub observed: String,
    /// A rewording's new title.
    pub new_title: Option<String>,
    /// A check change's new command.
    pub new_check: Option<String>,
    pub authority: Authority,
    /// The chat's change request, e.g. `c1`.
    pub change: Option<String>,
    /// A deferral's target task: where the criterion goes.
    pub target: Option<u32>,
}
