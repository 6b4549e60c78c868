//! The approved plan as a contract (DESIGN §12): which `turn_plan` calls change it, the
//! change request they become, and the list an approved change makes. Pure.
//!
//! A plan step (`origin: plan`) may be started and finished freely; dropping it, rewording
//! it, or an `init` over a list that holds plan steps is a plan change, applied only once the
//! user approves (or at once, and recorded, in an auto-approve chat). The executor's own
//! tasks stay free.

use serde::{Deserialize, Serialize};

use super::limits::{checked_check, checked_outcome, checked_title};
use super::{NewTask, Operation, TaskList, TaskOrigin, TaskStatus, TrackerError};
use crate::ids::ChangeId;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// A plan step leaves the plan.
    Drop,
    /// A plan step is reworded.
    Modify,
    /// The open tasks are replaced by new ones (an `init`).
    Replace,
    /// A plan step is to be proven by another command than its planned check (DESIGN §14).
    Check,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ChangeStatus {
    Pending,
    Approved,
    Rejected,
}

impl ChangeStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            ChangeStatus::Pending => "pending",
            ChangeStatus::Approved => "approved",
            ChangeStatus::Rejected => "rejected",
        }
    }
}

/// What the executor asks to change, before it is stored: `{kind, task, reason,
/// new_title?, tasks?}` of DESIGN §12, with the step's title as it stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChangeRequest {
    pub kind: ChangeKind,
    /// The plan step it is about (none for a replacement).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub task: Option<u32>,
    /// The step's title when the change was asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<String>,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub new_title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub tasks: Option<Vec<NewTask>>,
    /// A check change's new command, with the planned one it replaces in `old_check`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub new_check: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub old_check: Option<String>,
}

/// A stored change request with its answer: `{id, kind, task, reason, new_title?, tasks?}`
/// of DESIGN §12 and `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanChange {
    pub id: ChangeId,
    #[serde(flatten)]
    pub request: ChangeRequest,
    pub status: ChangeStatus,
    pub requested_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub answered_at: Option<String>,
    /// Applied at once by the chat's auto-approve setting, not by the user.
    #[serde(default)]
    pub auto_approved: bool,
    /// The plan revision its approval made.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub revision: Option<u32>,
}

impl PlanChange {
    /// One line for people: "drop task 3 “Write the docs”".
    pub fn describe(&self) -> String {
        let request = &self.request;
        let task = request.task.unwrap_or(0);
        let title = request.title.as_deref().unwrap_or("");
        match request.kind {
            ChangeKind::Drop => format!("drop task {task} “{title}”"),
            ChangeKind::Modify => format!(
                "reword task {task} “{title}” as “{}”",
                request.new_title.as_deref().unwrap_or("")
            ),
            ChangeKind::Replace => {
                let count = request.tasks.as_ref().map_or(0, Vec::len);
                format!("replace the open tasks with {count} new ones")
            }
            ChangeKind::Check => format!(
                "prove task {task} “{title}” by `{}` instead of its planned check `{}`",
                request.new_check.as_deref().unwrap_or(""),
                request.old_check.as_deref().unwrap_or("")
            ),
        }
    }
}

/// The reason shown when the executor gave none.
const NO_REASON: &str = "(the executor gave no reason)";

impl TaskList {
    /// The plan change `op` would be, if it is one: `Ok(None)` for an operation that stays
    /// free (anything on the executor's own tasks, starting or finishing a plan step). A
    /// change that could not apply (a missing task, a title over the limit) is refused now,
    /// so nothing unappliable ever waits for the user.
    pub fn plan_change(&self, op: &Operation) -> Result<Option<ChangeRequest>, TrackerError> {
        let plan_step = |id: u32| {
            self.get(id).filter(|task| task.origin == TaskOrigin::Plan).map(|t| t.title.clone())
        };
        let request = match op {
            Operation::Drop { id, outcome } => match plan_step(*id) {
                Some(title) if self.get(*id).is_some_and(|t| t.status != TaskStatus::Dropped) => {
                    ChangeRequest {
                        kind: ChangeKind::Drop,
                        task: Some(*id),
                        title: Some(title),
                        reason: reason(outcome.as_deref())?,
                        new_title: None,
                        tasks: None,
                        new_check: None,
                        old_check: None,
                    }
                }
                _ => return Ok(None),
            },
            Operation::Modify { id, title: new_title, reason: why } => match plan_step(*id) {
                Some(title) => {
                    let new_title = checked_title(1, new_title)?;
                    if new_title == title {
                        return Ok(None);
                    }
                    ChangeRequest {
                        kind: ChangeKind::Modify,
                        task: Some(*id),
                        title: Some(title),
                        reason: reason(why.as_deref())?,
                        new_title: Some(new_title),
                        tasks: None,
                        new_check: None,
                        old_check: None,
                    }
                }
                None => return Ok(None),
            },
            Operation::Init { tasks } if self.holds_plan_steps() => ChangeRequest {
                kind: ChangeKind::Replace,
                task: None,
                title: None,
                reason: NO_REASON.to_owned(),
                new_title: None,
                tasks: Some(tasks.clone()),
                new_check: None,
                old_check: None,
            },
            Operation::Done { id, outcome, gate: Some(gate) } => {
                match self.check_change(*id, &gate.command, outcome.as_deref())? {
                    Some(request) => request,
                    None => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        self.with_change(&request)?;
        Ok(Some(request))
    }

    /// Whether any task is a step of the approved plan.
    pub fn holds_plan_steps(&self) -> bool {
        self.tasks.iter().any(|task| task.origin == TaskOrigin::Plan)
    }

    /// The list once `change` is approved. A drop or rewording applies as the operation
    /// would have. A replacement keeps what is finished and the ids in use: the open tasks
    /// are dropped (outcome "replaced"), the new tasks appended as plan steps (the user
    /// approved them). Refused when the list no longer has what the change is about.
    pub fn with_change(&self, change: &ChangeRequest) -> Result<TaskList, TrackerError> {
        let task = change.task.unwrap_or(0);
        match change.kind {
            ChangeKind::Drop => {
                let outcome = Some(change.reason.clone());
                self.apply(&Operation::Drop { id: task, outcome })
            }
            ChangeKind::Modify => {
                let title = change.new_title.clone().unwrap_or_default();
                self.apply(&Operation::Modify { id: task, title, reason: None })
            }
            ChangeKind::Replace => self.with_replacement(change.tasks.as_deref().unwrap_or(&[])),
            ChangeKind::Check => self.with_check(task, change.new_check.as_deref().unwrap_or("")),
        }
    }

    /// The change a `done` proven by `command` is when its task has another planned check.
    fn check_change(
        &self,
        id: u32,
        command: &str,
        outcome: Option<&str>,
    ) -> Result<Option<ChangeRequest>, TrackerError> {
        let Some(task) = self.get(id) else { return Ok(None) };
        let Some(planned) = task.check.as_deref() else { return Ok(None) };
        let command = checked_check(command)?;
        if command == planned.trim() {
            return Ok(None);
        }
        Ok(Some(ChangeRequest {
            kind: ChangeKind::Check,
            task: Some(id),
            title: Some(task.title.clone()),
            reason: reason(outcome)?,
            new_title: None,
            tasks: None,
            new_check: Some(command),
            old_check: Some(planned.to_owned()),
        }))
    }

    /// The list with task `id` proven by `command` from now on (an approved check change).
    fn with_check(&self, id: u32, command: &str) -> Result<TaskList, TrackerError> {
        let command = checked_check(command)?;
        let index = self.position_of(id)?;
        let mut next = self.clone();
        next.tasks[index].check = Some(command);
        Ok(next)
    }

    fn with_replacement(&self, tasks: &[NewTask]) -> Result<TaskList, TrackerError> {
        let mut next = self.clone();
        for task in &mut next.tasks {
            if matches!(task.status, TaskStatus::Pending | TaskStatus::Active) {
                task.status = TaskStatus::Dropped;
                task.outcome = Some("replaced by the approved change of the plan".to_owned());
            }
        }
        if tasks.is_empty() {
            return Ok(next);
        }
        let first_new = next.fresh_id();
        let mut next = next.apply(&Operation::Add { tasks: tasks.to_vec() })?;
        for task in next.tasks.iter_mut().filter(|task| task.id >= first_new) {
            task.origin = TaskOrigin::Plan;
        }
        Ok(next)
    }
}

fn reason(text: Option<&str>) -> Result<String, TrackerError> {
    Ok(checked_outcome(text)?.unwrap_or_else(|| NO_REASON.to_owned()))
}
