//! The task list's data: what is stored, sent in `plan` events and returned by the API.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Pending,
    Active,
    Done,
    Dropped,
}

impl TaskStatus {
    /// Pending or active: work left to do.
    pub fn is_open(self) -> bool {
        matches!(self, TaskStatus::Pending | TaskStatus::Active)
    }
}

/// Where a task came from (DESIGN §12): a step of the approved plan, or the executor's own.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskOrigin {
    Plan,
    /// Lists stored before origins were kept read as the executor's.
    #[default]
    Executor,
}

/// A task's priority (seed 001), when the executor gives one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Priority {
    High,
    Medium,
    Low,
}

/// A validation run Preflight made itself in the chat's code sandbox (DESIGN §11), recorded
/// with the task: `passes` is `exit_code == 0`, `evidence` the output's last non-empty lines
/// (at most 300 characters), `duration_ms` the command's own time, `last_run` when it ran.
/// Lists stored before gates were measured lack the last three (read as false, 0, "").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Gate {
    pub command: String,
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub exit_code: i64,
    #[serde(default)]
    pub passes: bool,
    pub evidence: String,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub duration_ms: u64,
    #[serde(default)]
    pub last_run: String,
    /// The run hit its timeout and was killed.
    #[serde(default)]
    pub timed_out: bool,
}

/// One task, in the wire shape `{id, phase?, title, status, outcome?}` of seed 000, with
/// its gate, origin, priority and times (DESIGN §12; the times are stamped when it is saved).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Task {
    pub id: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub phase: Option<String>,
    pub title: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub outcome: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub gate: Option<Gate>,
    #[serde(default)]
    pub origin: TaskOrigin,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub priority: Option<Priority>,
    /// The check the approved plan gave this step (DESIGN §14): the command Preflight runs
    /// as the task's gate when the executor finishes it without naming one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub check: Option<String>,
    /// The tasks that must be done first (the plan step's `depends_on`, as task ids): the
    /// task cannot start before them, and is not made active before them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<u32>>", optional))]
    pub depends_on: Vec<u32>,
    /// RFC 3339; absent in lists stored before tasks were stamped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub created_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub updated_at: Option<String>,
}

/// A chat's whole task list. Ids are never reused while the list lives; `init` restarts them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskList {
    pub tasks: Vec<Task>,
    /// The id the next added task gets.
    pub next_id: u32,
    /// The ids of the approved plan's steps, as the approval made them (DESIGN §12): what
    /// the completion record measures the work against. Empty for the executor's own list.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub planned: Vec<u32>,
    /// What happened to each task, in order, as saves found it (`TaskList::stamped`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<TaskEvent>,
}

/// One entry of a list's history: a task was added, started, finished, dropped, reopened or
/// reworded at `at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct TaskEvent {
    pub at: String,
    pub task: u32,
    pub kind: TaskEventKind,
    /// The task's title after the event.
    pub title: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum TaskEventKind {
    Added,
    Started,
    Done,
    Dropped,
    Reopened,
    Modified,
}

/// A step of an approved plan as its task starts (DESIGN §14): the title, the planned check
/// and the earlier steps it depends on (1-based step numbers, which are the task ids).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlannedTask {
    pub title: String,
    pub check: Option<String>,
    pub depends_on: Vec<u32>,
}

impl PlannedTask {
    pub fn titled(title: String) -> PlannedTask {
        PlannedTask { title, ..PlannedTask::default() }
    }
}
