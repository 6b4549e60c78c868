//! The completion record of an approved plan (DESIGN §12, seed 001 `plan_complete`): what
//! was planned, what was done, and how the work departed from the plan. The figures are
//! computed from the list's own history, never taken from the model; only the summary is
//! the executor's (its final answer). Pure.

use serde::{Deserialize, Serialize};

use super::{Task, TaskEventKind, TaskList, TaskStatus, WorkEvent};

/// `state.completion` of a chat whose plan steps are all finished.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Completion {
    /// The executor's final answer.
    pub summary: String,
    pub deviations: Vec<Deviation>,
    pub adherence: Adherence,
    /// The steps as the user approved them.
    pub planned: Vec<PlannedStep>,
    /// The task list as it ended, with each task's gate.
    pub tasks: Vec<Task>,
    /// Each time the executor stopped with tasks left and each Continue, in order; empty
    /// when the work ran through (records stored before stops were logged have none).
    #[serde(default)]
    pub stops_and_continues: Vec<WorkEvent>,
    pub finished_at: String,
    /// The plan folder's finalisation (seed 002), in a chat that saves its plan as files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub finalization: Option<FinalizationNote>,
}

/// The verdict of the plan folder's finaliser, as the completion card shows it: VERIFIED,
/// or UNVERIFIED with the reasons, and where the attestation `FINALIZATION.json` is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FinalizationNote {
    /// `VERIFIED` or `UNVERIFIED`.
    pub verdict: String,
    pub reasons: Vec<String>,
    /// The attestation relative to the workspace.
    pub file: String,
    /// The same file as an absolute path.
    pub path: String,
    /// How many gates were run again before the verdict.
    pub gates_rerun: u32,
    /// Tasks whose check failed when run again: their completion was withdrawn, and they
    /// are open again in the chat's task list (Continue works on them).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(as = "Option<Vec<u32>>", optional))]
    pub reopened: Vec<u32>,
    /// Planned steps dropped by the chat's auto-approve setting, not by the user.
    #[serde(default)]
    pub dropped_without_user: u32,
    /// The steps of the plan as approved.
    #[serde(default)]
    pub planned: u32,
    /// When the user accepted the unverified plan as is: an explicit, recorded choice.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub accepted_at: Option<String>,
}

impl FinalizationNote {
    /// An UNVERIFIED verdict the user has not accepted: the plan is finished, not verified.
    pub fn waits_for_the_user(&self) -> bool {
        self.verdict != "VERIFIED" && self.accepted_at.is_none()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlannedStep {
    pub id: u32,
    pub title: String,
}

/// How closely the work kept to the approved plan. `steps` = `done_as_planned` +
/// `modified` + `dropped` (a step reworded and then dropped counts as dropped); `added` are
/// the tasks that were not steps of the approved plan; `in_order` says whether the steps
/// done were finished in the plan's order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Adherence {
    pub steps: u32,
    pub done_as_planned: u32,
    pub modified: u32,
    pub dropped: u32,
    pub added: u32,
    pub in_order: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum DeviationKind {
    Dropped,
    Modified,
    Added,
    OutOfOrder,
}

/// One departure from the plan, e.g. `{kind: "dropped", task: 3, title, detail: why}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Deviation {
    pub kind: DeviationKind,
    pub task: u32,
    pub title: String,
    pub detail: String,
}

impl TaskList {
    /// Whether this list carries out an approved plan and none of its steps is left: the
    /// moment a completion record is due.
    pub fn plan_finished(&self) -> bool {
        !self.planned.is_empty() && self.is_finished()
    }

    /// The completion record of this list, with `summary` as the executor's final answer.
    pub fn completion(&self, summary: &str, now: &str) -> Completion {
        let planned = self.planned_steps();
        let mut adherence = Adherence {
            steps: planned.len() as u32,
            done_as_planned: 0,
            modified: 0,
            dropped: 0,
            added: 0,
            in_order: true,
        };
        let mut deviations = Vec::new();
        for step in &planned {
            let Some(task) = self.get(step.id) else {
                adherence.dropped += 1;
                deviations.push(deviation(DeviationKind::Dropped, step.id, &step.title, "gone"));
                continue;
            };
            let reworded = self.was_modified(step.id);
            if task.status == TaskStatus::Dropped {
                adherence.dropped += 1;
                let why = task.outcome.as_deref().unwrap_or("no reason given");
                deviations.push(deviation(DeviationKind::Dropped, step.id, &step.title, why));
            } else if reworded {
                adherence.modified += 1;
                let detail = format!("now: {}", task.title);
                deviations.push(deviation(DeviationKind::Modified, step.id, &step.title, &detail));
            } else {
                adherence.done_as_planned += 1;
            }
        }
        for task in self.tasks.iter().filter(|task| !self.planned.contains(&task.id)) {
            adherence.added += 1;
            let detail = match (task.status, &task.outcome) {
                (TaskStatus::Dropped, Some(why)) => format!("dropped: {why}"),
                (TaskStatus::Dropped, None) => "dropped".to_owned(),
                _ => "done".to_owned(),
            };
            deviations.push(deviation(DeviationKind::Added, task.id, &task.title, &detail));
        }
        let out_of_order = self.out_of_order(&planned);
        adherence.in_order = out_of_order.is_empty();
        deviations.extend(out_of_order);
        Completion {
            summary: summary.trim().to_owned(),
            deviations,
            adherence,
            planned,
            tasks: self.tasks.clone(),
            stops_and_continues: Vec::new(),
            finished_at: now.to_owned(),
            finalization: None,
        }
    }

    /// The approved plan's steps with the titles they were approved with.
    fn planned_steps(&self) -> Vec<PlannedStep> {
        self.planned
            .iter()
            .map(|&id| {
                let added =
                    self.history.iter().find(|e| e.task == id && e.kind == TaskEventKind::Added);
                let title = added
                    .map(|event| event.title.clone())
                    .or_else(|| self.get(id).map(|task| task.title.clone()))
                    .unwrap_or_default();
                PlannedStep { id, title }
            })
            .collect()
    }

    fn was_modified(&self, id: u32) -> bool {
        self.history.iter().any(|event| event.task == id && event.kind == TaskEventKind::Modified)
    }

    /// Each step finished while an earlier step of the plan, done later, was not yet done.
    fn out_of_order(&self, planned: &[PlannedStep]) -> Vec<Deviation> {
        let done_of_plan: Vec<usize> = {
            let mut seen = Vec::new();
            for event in self.history.iter().filter(|e| e.kind == TaskEventKind::Done) {
                let place = planned.iter().position(|step| step.id == event.task);
                let kept = self.get(event.task).is_some_and(|t| t.status == TaskStatus::Done);
                if let Some(place) = place.filter(|place| kept && !seen.contains(place)) {
                    seen.push(place);
                }
            }
            seen
        };
        let mut found = Vec::new();
        for (at, &place) in done_of_plan.iter().enumerate() {
            let later_earlier = done_of_plan[at + 1..].iter().filter(|&&p| p < place).min();
            if let Some(&earlier) = later_earlier {
                let step = &planned[place];
                let detail = format!("finished before step {}", planned[earlier].id);
                found.push(deviation(DeviationKind::OutOfOrder, step.id, &step.title, &detail));
            }
        }
        found
    }
}

fn deviation(kind: DeviationKind, task: u32, title: &str, detail: &str) -> Deviation {
    Deviation { kind, task, title: title.to_owned(), detail: detail.to_owned() }
}
