//! From the `turn_plan` tracker to the plan files: which protocol points a task list means,
//! given what `state.json` says now. Diffing against the file, not against the previous
//! list, makes a sync idempotent and lets it catch up after one that failed.
//!
//! Mapping (DESIGN §6): pending → pending, active → in_progress, done with a passing gate
//! → completed, dropped → blocked (reason: its outcome) until the user confirms the drop
//! (`confirm_drop`), then skipped; a drop that needs no confirmation (`DropSettled`: the
//! executor's own task, or a drop the user approved as a plan change) → skipped at once.

use super::documents::{GateRecord, Outcome, PlanState, Status, EPOCH};
use super::evidence::GateInput;
use super::transition::Change;
use crate::input::{DropSettled, TrackedStatus, TrackedTask};

/// What a dropped task waits for.
pub const DROP_NEEDS: &str = "the user's confirmation of the drop, or a way forward";

/// The list no longer matches the plan files (an `init` replaced it): `detail` says how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListReplaced {
    pub(crate) detail: String,
}

/// The changes that take `state` to what `tasks` says, finishing points first and the
/// start of the active task last (so "task 2 completed" precedes "task 3 started").
pub(crate) fn changes_for(
    state: &PlanState,
    tasks: &[TrackedTask],
) -> Result<Vec<Change>, ListReplaced> {
    check_same_plan(state, tasks)?;
    let mut changes = Vec::new();
    let mut starts = Vec::new();
    for task in tasks {
        let current = match state.task(task.id) {
            Some(entry) => entry.status,
            None => {
                let (title, phase) = (task.title.clone(), task.phase.clone());
                changes.push(Change::AddTask { id: task.id, title, phase });
                Status::Pending
            }
        };
        match task.status {
            TrackedStatus::Done => finish(state, task, current, &mut changes),
            TrackedStatus::Dropped => drop_task(task, current, &mut changes),
            TrackedStatus::Active => start(task, current, &mut starts),
            TrackedStatus::Pending => {}
        }
    }
    changes.extend(starts);
    Ok(changes)
}

/// The files keep the approved plan: a list that lost or renamed one of its tasks (an
/// `init` over it) cannot be projected onto them.
fn check_same_plan(state: &PlanState, tasks: &[TrackedTask]) -> Result<(), ListReplaced> {
    for entry in &state.tasks {
        let detail = match tasks.iter().find(|task| task.id == entry.id) {
            None => format!("task {} ({}) is no longer in the list", entry.id, entry.title),
            Some(task) if task.title != entry.title => {
                format!("task {} is now {:?}, not {:?}", entry.id, task.title, entry.title)
            }
            Some(_) => continue,
        };
        return Err(ListReplaced { detail });
    }
    Ok(())
}

fn finish(state: &PlanState, task: &TrackedTask, current: Status, changes: &mut Vec<Change>) {
    let gates: Vec<GateInput> = task.gate.iter().cloned().collect();
    let recorded = |gate: &GateInput| {
        state
            .task(task.id)
            .and_then(|entry| entry.gates.iter().find(|record| same_run(record, gate)))
    };
    let known = task.gate.as_ref().map(recorded);
    if current == Status::Completed {
        if let Some(None) = known {
            changes.push(Change::RecordGates { task: task.id, gates });
        }
        return;
    }
    match known {
        // This failing run is on file and its completion was refused before: nothing new.
        Some(Some(record)) if !record.passes => return,
        // A new failing run: recorded as its own protocol point (completion will be refused).
        Some(None) if !gates.iter().all(would_pass) => {
            changes.push(Change::RecordGates { task: task.id, gates: gates.clone() })
        }
        _ => {}
    }
    if current == Status::Skipped {
        let reason = "completed by the executor after it was skipped".to_owned();
        changes.push(Change::Reopen { task: task.id, reason });
    }
    let outcome = task
        .outcome
        .as_ref()
        .map(|worked| Outcome { worked: Some(worked.clone()), ..Outcome::default() });
    changes.push(Change::Complete { task: task.id, gates, outcome, commit: None });
}

fn would_pass(gate: &GateInput) -> bool {
    gate.clone().into_record(EPOCH).is_ok_and(|record| record.passes)
}

fn same_run(record: &GateRecord, gate: &GateInput) -> bool {
    let input = gate.clone().into_record(&record.last_run);
    input.is_ok_and(|fresh| {
        fresh.command == record.command
            && fresh.exit_code == record.exit_code
            && fresh.evidence == record.evidence
    })
}

fn drop_task(task: &TrackedTask, current: Status, changes: &mut Vec<Change>) {
    let settled = task.drop_settled != DropSettled::No;
    if current == Status::Skipped || (current == Status::Blocked && !settled) {
        return;
    }
    if current == Status::Completed {
        changes.push(Change::Reopen {
            task: task.id,
            reason: "dropped by the executor after completion".to_owned(),
        });
    }
    let reason = task.outcome.clone().unwrap_or_else(|| "dropped by the executor".to_owned());
    changes.push(match task.drop_settled {
        DropSettled::No => Change::Block { task: task.id, reason, needs: DROP_NEEDS.to_owned() },
        DropSettled::OwnTask => Change::Retire { task: task.id, reason },
        DropSettled::Approved => Change::Skip {
            task: task.id,
            reason: format!("the executor's drop, approved: {reason}"),
        },
    });
}

fn start(task: &TrackedTask, current: Status, starts: &mut Vec<Change>) {
    match current {
        Status::InProgress => {}
        Status::Pending => starts.push(Change::Start { task: task.id }),
        Status::Completed | Status::Blocked | Status::Skipped => starts
            .push(Change::Reopen { task: task.id, reason: "restarted by the executor".to_owned() }),
    }
}
