//! From the `turn_plan` tracker to the plan files: which protocol points a task list means,
//! given what `state.json` says now. Diffing against the file, not against the previous
//! list, makes a sync idempotent and lets it catch up after one that failed.
//!
//! Mapping (DESIGN §6): pending → pending, active → in_progress, done with a passing gate
//! → completed, dropped → blocked (reason: its outcome) until the user confirms the drop
//! (`confirm_drop`), then skipped.

use super::error::DwpError;
use super::gate::{check_done_allowed, GateInput};
use super::plan_dir::{PlanDir, Writer};
use super::schema::{Outcome, PlanState, Status};
use super::update::Change;
use super::PlanFiles;
use crate::tasks::{Gate, Operation, Task, TaskList, TaskStatus};

/// What a dropped task waits for.
pub const DROP_NEEDS: &str = "the user's confirmation of the drop, or a way forward";

/// The protocol points a sync wrote, and the ones the rules refused (the task then stays
/// as `state.json` had it; e.g. a `done` without a passing gate is not `completed`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub points: Vec<String>,
    pub refused: Vec<String>,
}

impl PlanFiles {
    /// Brings `state.json`, README.md and PROGRESS.md in line with the tracker's list, one
    /// protocol point per change. An empty list (a plan closed at the end of a turn)
    /// changes nothing. Refuses to write when README.md and `state.json` disagree.
    pub fn sync(&self, dir: &PlanDir, tasks: &TaskList, now: &str) -> Result<SyncReport, DwpError> {
        let mut report = SyncReport::default();
        if tasks.is_empty() {
            return Ok(report);
        }
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.ensure_in_sync()?;
        for change in changes_for(writer.state(), tasks)? {
            match writer.apply(&change, now) {
                Ok(_) => report.points.push(format!("{}: {}", change.point(), task_of(&change))),
                Err(DwpError::Refused(refusal)) => report.refused.push(refusal.to_string()),
                Err(error) => return Err(error),
            }
        }
        Ok(report)
    }

    /// Records one validation run (the "gate run" protocol point), e.g. the failing run of
    /// a `done` that `check_done_allowed` refused.
    pub fn record_gate(
        &self,
        dir: &PlanDir,
        task: u32,
        gate: &Gate,
        now: &str,
    ) -> Result<(), DwpError> {
        let change = Change::RecordGates { task, gates: vec![GateInput::from(gate)] };
        self.apply_one(dir, &change, now)
    }

    /// The checkpoint before a planned pause, in the task in progress; `false` when no task
    /// is in progress (nothing to resume inside).
    pub fn checkpoint(
        &self,
        dir: &PlanDir,
        step: &str,
        note: &str,
        now: &str,
    ) -> Result<bool, DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.ensure_in_sync()?;
        let Some(task) =
            writer.state().tasks.iter().find(|t| t.status == Status::InProgress).map(|t| t.id)
        else {
            return Ok(false);
        };
        writer.apply(
            &Change::Checkpoint { task, step: step.to_owned(), note: note.to_owned() },
            now,
        )?;
        Ok(true)
    }

    /// The user confirmed that a dropped task leaves the plan: it becomes `skipped`.
    pub fn confirm_drop(
        &self,
        dir: &PlanDir,
        task: u32,
        reason: &str,
        now: &str,
    ) -> Result<(), DwpError> {
        self.apply_one(
            dir,
            &Change::Skip { task, reason: format!("drop confirmed: {reason}") },
            now,
        )
    }

    fn apply_one(&self, dir: &PlanDir, change: &Change, now: &str) -> Result<(), DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.ensure_in_sync()?;
        writer.apply(change, now).map(drop)
    }
}

fn task_of(change: &Change) -> String {
    let task = match change {
        Change::AddTask { id, .. } => *id,
        Change::Start { task }
        | Change::RecordGates { task, .. }
        | Change::Complete { task, .. }
        | Change::Block { task, .. }
        | Change::ResolveBlocker { task }
        | Change::Reopen { task, .. }
        | Change::Skip { task, .. }
        | Change::Checkpoint { task, .. } => *task,
    };
    format!("task {task}")
}

/// `check_done_allowed`, and one more rule for a chat whose plan is saved as files: `init`
/// may not replace a list that has tasks (the files keep the approved plan, keyed by id).
/// The error is the text the model reads.
pub fn check_turn_plan_allowed(op: &Operation, current: &TaskList) -> Result<(), String> {
    if let Operation::Init { .. } = op {
        if !current.is_empty() {
            return Err(
                "this plan is saved in .dwp/plans and cannot be replaced: change it with add \
                        (new tasks) and drop (tasks that no longer apply), not init"
                    .to_owned(),
            );
        }
    }
    check_done_allowed(op)
}

/// The changes that take `state` to what `tasks` says, finishing points first and the
/// start of the active task last (so "task 2 completed" precedes "task 3 started").
pub fn changes_for(state: &PlanState, tasks: &TaskList) -> Result<Vec<Change>, DwpError> {
    check_same_plan(state, tasks)?;
    let mut changes = Vec::new();
    let mut starts = Vec::new();
    for task in &tasks.tasks {
        let current = match state.task(task.id) {
            Some(entry) => entry.status,
            None => {
                let (title, phase) = (task.title.clone(), task.phase.clone());
                changes.push(Change::AddTask { id: task.id, title, phase });
                Status::Pending
            }
        };
        match task.status {
            TaskStatus::Done => finish(state, task, current, &mut changes),
            TaskStatus::Dropped => drop_task(task, current, &mut changes),
            TaskStatus::Active => start(task, current, &mut starts),
            TaskStatus::Pending => {}
        }
    }
    changes.extend(starts);
    Ok(changes)
}

/// The files keep the approved plan: a list that lost or renamed one of its tasks (an
/// `init` over it) cannot be projected onto them.
fn check_same_plan(state: &PlanState, tasks: &TaskList) -> Result<(), DwpError> {
    for entry in &state.tasks {
        let detail = match tasks.get(entry.id) {
            None => format!("task {} ({}) is no longer in the list", entry.id, entry.title),
            Some(task) if task.title != entry.title => {
                format!("task {} is now {:?}, not {:?}", entry.id, task.title, entry.title)
            }
            Some(_) => continue,
        };
        return Err(DwpError::TaskListReplaced { detail });
    }
    Ok(())
}

fn finish(state: &PlanState, task: &Task, current: Status, changes: &mut Vec<Change>) {
    let gates: Vec<GateInput> = task.gate.iter().map(GateInput::from).collect();
    let recorded = |gate: &Gate| {
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
    gate.clone().into_record(super::schema::EPOCH).is_ok_and(|record| record.passes)
}

fn same_run(record: &super::schema::GateRecord, gate: &Gate) -> bool {
    let input = GateInput::from(gate).into_record(&record.last_run);
    input.is_ok_and(|fresh| {
        fresh.command == record.command
            && fresh.exit_code == record.exit_code
            && fresh.evidence == record.evidence
    })
}

fn drop_task(task: &Task, current: Status, changes: &mut Vec<Change>) {
    if matches!(current, Status::Blocked | Status::Skipped) {
        return;
    }
    if current == Status::Completed {
        changes.push(Change::Reopen {
            task: task.id,
            reason: "dropped by the executor after completion".to_owned(),
        });
    }
    let reason = task.outcome.clone().unwrap_or_else(|| "dropped by the executor".to_owned());
    changes.push(Change::Block { task: task.id, reason, needs: DROP_NEEDS.to_owned() });
}

fn start(task: &Task, current: Status, starts: &mut Vec<Change>) {
    match current {
        Status::InProgress => {}
        Status::Pending => starts.push(Change::Start { task: task.id }),
        Status::Completed | Status::Blocked | Status::Skipped => starts
            .push(Change::Reopen { task: task.id, reason: "restarted by the executor".to_owned() }),
    }
}
