//! The engine's protocol points on a plan folder: a sync of the tracker's list (one write
//! per change `rules/tracker.rs` finds), a gate run, the checkpoint before a pause, a pause
//! for the user and its resumption, an approved plan change (an amendment), the user's
//! confirmation of a drop. Each is one guarded write session.
//!
//! Every session the engine opens first follows README.md (`Writer::follow_markdown`):
//! Markdown wins where the evidence lets it, and what it cannot settle is reported, never
//! a reason to stop following the work.

use std::path::Path;

use super::error::DwpError;
use super::folder::PlanFolder;
use super::git_head::head_commit;
use super::writer::Writer;
use crate::disk::plan_files::PlanFolderWriter;
use crate::rules::documents::{Pause, PlanState, Status, Superseded};
use crate::rules::evidence::GateInput;
use crate::rules::input::{AmendmentInput, TrackedTask};
use crate::rules::tracker::{self, Planned};
use crate::rules::transition::{Applied, Change};

/// The protocol points a sync wrote, and the ones the rules refused (the task then stays
/// as `state.json` had it; e.g. a `done` without a passing gate is not `completed`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SyncReport {
    pub points: Vec<String>,
    pub refused: Vec<String>,
    /// Where README.md, the files and the list disagree in a way no write settles: for the
    /// chat to show (the verifier reports the same from the files).
    pub disagreements: Vec<String>,
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
        self.sync_after(dir, tasks, None, now)
    }

    /// [`sync`](Self::sync) after the workspace was restored (`cause`, in words): every
    /// task the restored list has open is open again in the files first, its evidence
    /// invalidated and the cause said, and a verdict over the plan withdrawn with it.
    pub fn sync_restored(
        &self,
        dir: &PlanFolder,
        tasks: &[TrackedTask],
        cause: &str,
        now: &str,
    ) -> Result<SyncReport, DwpError> {
        self.sync_after(dir, tasks, Some(cause), now)
    }

    fn sync_after(
        &self,
        dir: &PlanFolder,
        tasks: &[TrackedTask],
        undone: Option<&str>,
        now: &str,
    ) -> Result<SyncReport, DwpError> {
        let mut report = SyncReport::default();
        if tasks.is_empty() {
            return Ok(report);
        }
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        report.disagreements = writer.follow_markdown(now)?;
        let restores = undone.map(|cause| tracker::undone_for(writer.state(), tasks, cause));
        for change in restores.unwrap_or_default() {
            apply_reported(&mut writer, &change, now, &mut report)?;
        }
        let commit = workspace_of(dir).and_then(head_commit);
        let planned = tracker::changes_for(writer.state(), tasks, commit.as_deref())?;
        report.disagreements.extend(planned.disagreements);
        for change in planned.changes {
            apply_reported(&mut writer, &change, now, &mut report)?;
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
        writer.follow_markdown(now)?;
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

    /// An approved change of the plan written as its amendment record, before the list
    /// that carries it is synced (so the sync finds the files already reworded or skipped).
    pub fn amend(
        &self,
        dir: &PlanFolder,
        amendment: AmendmentInput,
        now: &str,
    ) -> Result<(), DwpError> {
        self.apply_one(dir, &Change::Amend(amendment), now)
    }

    /// Preflight pauses `task` for the user (`blocked`, with what resumes it): a stop with
    /// work left, a change of the task waiting for an answer. Writes nothing when the task
    /// is finished, out of scope, or blocked already.
    pub fn pause(
        &self,
        dir: &PlanFolder,
        task: u32,
        pause: PauseInput,
        now: &str,
    ) -> Result<bool, DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.follow_markdown(now)?;
        let Some(entry) = writer.state().task(task) else { return Ok(false) };
        // Blocked already (for this or another reason, e.g. a drop waiting for an answer):
        // that blocker stands, with what resumes it.
        if matches!(entry.status, Status::Completed | Status::Skipped | Status::Blocked) {
            return Ok(false);
        }
        let PauseInput { reason, needs, pause } = pause;
        writer.apply(&Change::Pause { task, reason, needs, pause }, now)?;
        Ok(true)
    }

    /// The work resumes (`why`, in words, said first in PROGRESS.md): every task Preflight
    /// paused for `waits` is unblocked (back in progress, its records kept). Returns the
    /// tasks unblocked.
    pub fn resume(
        &self,
        dir: &PlanFolder,
        waits: impl Fn(&Pause) -> bool,
        why: &str,
        now: &str,
    ) -> Result<Vec<u32>, DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.follow_markdown(now)?;
        if paused_blocker(writer.state(), &waits).is_some() {
            // What made the work go on, said once before the tasks it unblocks.
            let line = format!("The work goes on: {}.", crate::rules::text::one_line(why));
            writer.write(Applied { state: writer.state().clone(), log: vec![line] }, now)?;
        }
        let mut resumed = Vec::new();
        while let Some(task) = paused_blocker(writer.state(), &waits) {
            writer.apply(&Change::ResolveBlocker { task }, now)?;
            resumed.push(task);
        }
        Ok(resumed)
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
        writer.follow_markdown(now)?;
        let applied = Applied { state: writer.state().clone(), log: lines.to_vec() };
        writer.write(applied, now).map(drop)
    }

    /// The chat set the plan aside (`why`, in words; e.g. its request was edited and it plans
    /// again): recorded in `state.json` and PROGRESS.md, the tasks kept as they stand. The
    /// folder is a record from then on: [`locate`](Self::locate) passes it over, so the
    /// chat's next plan gets a folder of its own. `false` when it was set aside already.
    pub fn supersede(&self, dir: &PlanFolder, why: &str, now: &str) -> Result<bool, DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.follow_markdown(now)?;
        if writer.state().superseded.is_some() {
            return Ok(false);
        }
        let why = crate::rules::text::one_line(why);
        let mut next = writer.state().clone();
        let open = next.open_task_list();
        let left = match open.is_empty() {
            true => String::new(),
            false => format!(" Its open tasks ({open}) stay as they were."),
        };
        let line = format!(
            "The plan is set aside: {why}.{left} The chat's next plan gets its own folder."
        );
        next.superseded = Some(Superseded { at: now.to_owned(), why });
        crate::rules::transition::stamp(&mut next, now, &self.author);
        writer.write(Applied { state: next, log: vec![line] }, now)?;
        Ok(true)
    }

    fn apply_one(&self, dir: &PlanFolder, change: &Change, now: &str) -> Result<(), DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.follow_markdown(now)?;
        writer.apply(change, now).map(drop)
    }
}

/// One change written, or its refusal reported (the task then stays as the files had it).
fn apply_reported(
    writer: &mut Writer<'_>,
    change: &Change,
    now: &str,
    report: &mut SyncReport,
) -> Result<(), DwpError> {
    match writer.apply(change, now) {
        Ok(_) => report.points.push(format!("{}: {}", change.point(), task_of(change))),
        Err(DwpError::Refused(refusal)) => report.refused.push(refusal.to_string()),
        Err(error) => return Err(error),
    }
    Ok(())
}

/// A pause as the engine asks for it: why, what it needs, and what resumes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PauseInput {
    pub reason: String,
    pub needs: String,
    pub pause: Pause,
}

/// The plan's current blocker when Preflight paused it for something `waits` accepts.
fn paused_blocker(state: &PlanState, waits: &impl Fn(&Pause) -> bool) -> Option<u32> {
    let blocked = state.blocked.as_ref()?;
    let pause = state.task(blocked.task)?.block.as_ref()?.pause.as_ref()?;
    waits(pause).then_some(blocked.task)
}

/// The workspace a plan folder lives in (`WORKSPACE/.dwp/plans/PLAN_x`).
fn workspace_of(dir: &PlanFolder) -> Option<&Path> {
    let plans = dir.path().parent()?;
    let dwp = plans.parent()?;
    (dwp.file_name()? == ".dwp").then(|| dwp.parent()).flatten()
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
        | Change::Restore { task, .. }
        | Change::Skip { task, .. }
        | Change::Retire { task, .. }
        | Change::Pause { task, .. }
        | Change::Checkpoint { task, .. } => *task,
        Change::Amend(amendment) => amendment.tasks.first().copied().unwrap_or_default(),
    };
    format!("task {task}")
}

/// The changes that take `state` to what `tasks` says, finishing points first and the
/// start of the active task last (so "task 2 completed" precedes "task 3 started"), and
/// what no change settles. `commit`: the HEAD recorded with a task completed now.
pub fn changes_for(
    state: &PlanState,
    tasks: &[TrackedTask],
    commit: Option<&str>,
) -> Result<Planned, DwpError> {
    Ok(tracker::changes_for(state, tasks, commit)?)
}
