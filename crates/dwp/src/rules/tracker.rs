//! From the `turn_plan` tracker to the plan files: which protocol points a task list means,
//! given what `state.json` says now. Diffing against the file, not against the previous
//! list, makes a sync idempotent and lets it catch up after one that failed.
//!
//! Mapping (DESIGN §6): pending → pending, active → in_progress, done with a passing gate
//! → completed, dropped → blocked (reason: its outcome) until the user confirms the drop
//! (`confirm_drop`), then skipped; a drop that needs no confirmation (`DropSettled`: the
//! executor's own task, or a drop the user approved as a plan change) → skipped at once.

use super::documents::{GateRecord, Outcome, Pause, PlanState, Status, EPOCH};
use super::evidence::GateInput;
use super::task_helpers::MAX_NOTE_CHARS;
use super::transition::Change;
use crate::rules::input::{DropSettled, TrackedStatus, TrackedTask};

/// What a dropped task waits for.
pub const DROP_NEEDS: &str = "the user's confirmation of the drop, or a way forward";

/// The list no longer matches the plan files (an `init` replaced it): `detail` says how.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListReplaced {
    pub(crate) detail: String,
}

/// What a sync will write: the changes in order, and where the list and the files disagree
/// in a way no change may settle (said in the chat, never only logged).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Planned {
    pub changes: Vec<Change>,
    pub disagreements: Vec<String>,
}

/// The changes that take `state` to what `tasks` says, finishing points first and the
/// start of the active task last (so "task 2 completed" precedes "task 3 started").
/// `commit` is the workspace's HEAD, recorded with a task completed now.
pub(crate) fn changes_for(
    state: &PlanState,
    tasks: &[TrackedTask],
    commit: Option<&str>,
) -> Result<Planned, ListReplaced> {
    check_same_plan(state, tasks)?;
    let mut planned = Planned::default();
    let mut starts = Vec::new();
    for task in tasks {
        let current = match state.task(task.id) {
            Some(entry) => entry.status,
            None => {
                let (title, phase) = (task.title.clone(), task.phase.clone());
                planned.changes.push(Change::AddTask { id: task.id, title, phase });
                Status::Pending
            }
        };
        let changes = &mut planned.changes;
        match task.status {
            TrackedStatus::Done => {
                if let Some(note) = finish(state, task, current, commit, changes) {
                    planned.disagreements.push(note);
                }
            }
            TrackedStatus::Dropped => drop_task(task, current, changes),
            TrackedStatus::Active => start(state, task, current, &mut starts),
            TrackedStatus::Pending => {}
        }
    }
    planned.changes.extend(starts);
    Ok(planned)
}

/// The changes a restore of the workspace means (`cause`, said in PROGRESS.md): each task
/// the restored list has open while the files hold it finished, blocked or out of scope is
/// open again. The rest of the list is synced as usual afterwards.
pub(crate) fn undone_for(state: &PlanState, tasks: &[TrackedTask], cause: &str) -> Vec<Change> {
    let open =
        |status: TrackedStatus| matches!(status, TrackedStatus::Pending | TrackedStatus::Active);
    let closed = |id: u32| {
        state.task(id).is_some_and(|entry| {
            matches!(entry.status, Status::Completed | Status::Blocked | Status::Skipped)
        })
    };
    let undone = tasks.iter().filter(|task| open(task.status) && closed(task.id));
    // The active task last, so that it is the one in progress when the restore is written.
    let (active, pending): (Vec<&TrackedTask>, Vec<&TrackedTask>) =
        undone.partition(|task| task.status == TrackedStatus::Active);
    pending
        .into_iter()
        .chain(active)
        .map(|task| Change::Restore {
            task: task.id,
            reason: cause.to_owned(),
            active: task.status == TrackedStatus::Active,
        })
        .collect()
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

/// The points of a `done` task; a disagreement when the files hold it open against a run
/// they already have (its box emptied by hand: Markdown won, and the same run again is no
/// new proof).
fn finish(
    state: &PlanState,
    task: &TrackedTask,
    current: Status,
    commit: Option<&str>,
    changes: &mut Vec<Change>,
) -> Option<String> {
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
        return None;
    }
    match known {
        // This failing run is on file and its completion was refused before: nothing new.
        Some(Some(record)) if !record.passes => return None,
        Some(Some(record)) if record.is_live() && current != Status::Skipped => {
            return Some(format!(
                "the chat's list says task {} is done, but the plan files have it {} with the                  same passing run of `{}` on file: run its check again, or tick its box",
                task.id,
                current.as_str(),
                record.command
            ));
        }
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
    let outcome = outcome_of(state, task);
    let commit = commit.map(str::to_owned);
    changes.push(Change::Complete { task: task.id, gates, outcome, commit });
    None
}

/// The outcome record of a task completed now (seed 002's episodic memory): what worked in
/// the executor's words, and from the runs Preflight measured, each command tried and each
/// that failed on the way.
fn outcome_of(state: &PlanState, task: &TrackedTask) -> Option<Outcome> {
    let records = state.task(task.id).map(|entry| entry.gates.as_slice()).unwrap_or_default();
    let mut tried: Vec<String> = Vec::new();
    for command in records.iter().map(|r| &r.command).chain(task.gate.iter().map(|g| &g.command)) {
        let line = clip(&format!("`{command}`"));
        if !tried.contains(&line) {
            tried.push(line);
        }
    }
    let failed: Vec<String> = records
        .iter()
        .filter(|record| !record.passes)
        .map(|record| {
            format!("`{}` exited {}: {}", record.command, record.exit_code, record.evidence)
        })
        .map(|line| clip(&line))
        .collect();
    let worked = task.outcome.clone();
    if worked.is_none() && tried.is_empty() {
        return None;
    }
    Some(Outcome { tried, failed, worked, notes: None })
}

/// One outcome line within the limit (a long command is cut with an ellipsis).
fn clip(line: &str) -> String {
    match line.chars().count() > MAX_NOTE_CHARS {
        true => line.chars().take(MAX_NOTE_CHARS - 1).chain(['…']).collect(),
        false => line.to_owned(),
    }
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

fn start(state: &PlanState, task: &TrackedTask, current: Status, starts: &mut Vec<Change>) {
    let pause = state
        .blocked
        .as_ref()
        .filter(|blocked| blocked.task == task.id)
        .and_then(|_| state.task(task.id))
        .and_then(|entry| entry.block.as_ref())
        .and_then(|block| block.pause.as_ref());
    let paused_by_preflight = pause.is_some();
    match current {
        Status::InProgress => {}
        Status::Pending => starts.push(Change::Start { task: task.id }),
        // A change of the task waits for the user: the task stays active in the chat's list
        // meanwhile, but only the answer resumes it (`resume` with that change).
        Status::Blocked if matches!(pause, Some(Pause::PlanChange { .. })) => {}
        // The work resumed on a task Preflight paused: unblocked, its records kept.
        Status::Blocked if paused_by_preflight => {
            starts.push(Change::ResolveBlocker { task: task.id })
        }
        Status::Completed | Status::Blocked | Status::Skipped => starts
            .push(Change::Reopen { task: task.id, reason: "restarted by the executor".to_owned() }),
    }
}
