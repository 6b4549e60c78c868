//! The engine's protocol points on a plan folder: a sync of the tracker's list (one write
//! per change `rules/tracker.rs` finds), a gate run, the checkpoint before a pause, and the
//! user's confirmation of a drop. Each is one guarded write session.

use super::error::DwpError;
use super::folder::PlanFolder;
use super::writer::Writer;
use crate::input::TrackedTask;
use crate::plan_files::PlanFolderWriter;
use crate::rules::documents::{PlanState, Status};
use crate::rules::evidence::GateInput;
use crate::rules::tracker;
use crate::rules::transition::{Applied, Change};

/// The protocol points a sync wrote, and the ones the rules refused (the task then stays
/// as `state.json` had it; e.g. a `done` without a passing gate is not `completed`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub points: Vec<String>,
    pub refused: Vec<String>,
}

impl PlanFolderWriter {
    /// Brings `state.json`, README.md and PROGRESS.md in line with the tracker's list, one
    /// protocol point per change. An empty list (a plan closed at the end of a turn)
    /// changes nothing. Refuses to write when README.md and `state.json` disagree.
    pub fn sync(
        &self,
        dir: &PlanFolder,
        tasks: &[TrackedTask],
        now: &str,
    ) -> Result<SyncReport, DwpError> {
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
    /// a `done` that `check_done` refused.
    pub fn record_gate(
        &self,
        dir: &PlanFolder,
        task: u32,
        gate: GateInput,
        now: &str,
    ) -> Result<(), DwpError> {
        let change = Change::RecordGates { task, gates: vec![gate] };
        self.apply_one(dir, &change, now)
    }

    /// The checkpoint before a planned pause, in the task in progress; `false` when no task
    /// is in progress (nothing to resume inside).
    pub fn checkpoint(
        &self,
        dir: &PlanFolder,
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
        dir: &PlanFolder,
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

    /// The plan's completion record (DESIGN §12): `lines` appended to PROGRESS.md as one
    /// protocol point. `state.json` keeps its tasks; its `status` follows from them.
    pub fn record_completion(
        &self,
        dir: &PlanFolder,
        lines: &[String],
        now: &str,
    ) -> Result<(), DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.ensure_in_sync()?;
        let applied = Applied { state: writer.state().clone(), log: lines.to_vec() };
        writer.write(applied, now).map(drop)
    }

    fn apply_one(&self, dir: &PlanFolder, change: &Change, now: &str) -> Result<(), DwpError> {
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
        | Change::Retire { task, .. }
        | Change::Checkpoint { task, .. } => *task,
    };
    format!("task {task}")
}

/// The changes that take `state` to what `tasks` says, finishing points first and the
/// start of the active task last (so "task 2 completed" precedes "task 3 started").
pub fn changes_for(state: &PlanState, tasks: &[TrackedTask]) -> Result<Vec<Change>, DwpError> {
    Ok(tracker::changes_for(state, tasks)?)
}
