//! The guarded updater's transitions: pure functions from one `state.json` to the next,
//! each a protocol point of seed 002, or a refusal that leaves the state as it was.
//!
//! Rules held here (checked by property tests in `tests/updater_props.rs`):
//! - a task becomes `completed` only with a gate run attached and every live gate record
//!   passing with evidence (a retry replaces its own command's record only);
//! - a gate run that fails on a completed task withdraws the completion;
//! - `skipped` comes only from [`Change::Skip`], the user's refinement;
//! - `--resolve-blocker` resolves the current blocker only, never another task's;
//! - a reopen logs the reopen and every piece of evidence it invalidates first.
//!
//! Blocking, resolving, reopening, skipping and checkpoints live in `refinement.rs`; the
//! helpers both files share (finding a task, making it current, the limits) in
//! `task_helpers.rs`.

use crate::rules::amendment::{amend, record_user_skip};
use crate::rules::documents::{Author, Outcome, Pause, PlanState, Status, TaskEntry};
use crate::rules::evidence::{completion_allowed, GateInput};
use crate::rules::input::AmendmentInput;
use crate::rules::refinement as refine;
use crate::rules::refusal::Refusal;
use crate::rules::restore;
use crate::rules::task_file::task_locator;
use crate::rules::task_helpers::{
    describe_run, make_current, task_in, task_in_mut, MAX_NOTE_CHARS, MAX_TITLE_CHARS,
};
use crate::rules::text::{check_length, checked_text, one_line};

/// One protocol point (or user refinement) applied to `state.json`.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    AddTask {
        id: u32,
        title: String,
        phase: Option<String>,
    },
    Start {
        task: u32,
    },
    /// Gate runs recorded without completing (a failing run, or a check before completion).
    RecordGates {
        task: u32,
        gates: Vec<GateInput>,
    },
    Complete {
        task: u32,
        gates: Vec<GateInput>,
        outcome: Option<Outcome>,
        commit: Option<String>,
    },
    Block {
        task: u32,
        reason: String,
        needs: String,
    },
    ResolveBlocker {
        task: u32,
    },
    Reopen {
        task: u32,
        reason: String,
    },
    /// The task's work was undone from outside the plan (a restore of the workspace): open
    /// again, `in_progress` when `active`, with the cause (`restore.rs`).
    Restore {
        task: u32,
        reason: String,
        active: bool,
    },
    /// The user's explicit refinement: the task leaves the plan's scope.
    Skip {
        task: u32,
        reason: String,
    },
    /// A task the executor added itself and then dropped: it leaves the plan without the
    /// user, since it was never part of what the user approved (DESIGN §12).
    Retire {
        task: u32,
        reason: String,
    },
    Checkpoint {
        task: u32,
        step: String,
        note: String,
    },
    /// An approved change of the plan, written as an amendment record (`amendment.rs`).
    Amend(AmendmentInput),
    /// Preflight pauses the task for the user: blocked, with what resumes it.
    Pause {
        task: u32,
        reason: String,
        needs: String,
        pause: Pause,
    },
}

impl Change {
    /// The protocol point's name as PROGRESS.md and reports show it.
    pub fn point(&self) -> &'static str {
        match self {
            Change::AddTask { .. } => "task added",
            Change::Start { .. } => "task start",
            Change::RecordGates { .. } => "gate run",
            Change::Complete { .. } => "completion",
            Change::Block { .. } => "blocked",
            Change::ResolveBlocker { .. } => "blocker resolved",
            Change::Reopen { .. } => "reopen",
            Change::Restore { .. } => "restore",
            Change::Skip { .. } => "skip",
            Change::Retire { .. } => "own task dropped",
            Change::Checkpoint { .. } => "checkpoint",
            Change::Amend(_) => "amendment",
            Change::Pause { .. } => "blocked",
        }
    }
}

impl Change {
    /// What the change did, in a few words: the cause a withdrawn verdict names.
    fn cause(&self) -> String {
        match self {
            Change::Restore { task, reason, .. } | Change::Reopen { task, reason } => {
                format!("task {task}: {reason}")
            }
            Change::RecordGates { task, .. } => format!("a check of task {task} failed"),
            Change::AddTask { id, .. } => format!("task {id} was added"),
            other => other.point().to_owned(),
        }
    }
}

/// The next state and the lines PROGRESS.md gets for it, in order.
#[derive(Debug, Clone, PartialEq)]
pub struct Applied {
    pub state: PlanState,
    pub log: Vec<String>,
}

/// `state` after `change` at `now` by `by`, or the refusal. `state` is never changed.
pub fn apply(
    state: &PlanState,
    change: &Change,
    now: &str,
    by: &Author,
) -> Result<Applied, Refusal> {
    let mut next = state.clone();
    let mut log = Vec::new();
    match change {
        Change::AddTask { id, title, phase } => {
            add_task(&mut next, *id, title, phase.as_deref(), &mut log)?
        }
        Change::Start { task } => start(&mut next, *task, now, &mut log)?,
        Change::RecordGates { task, gates } => {
            record_gates(&mut next, *task, gates, now, &mut log)?
        }
        Change::Complete { task, gates, outcome, commit } => {
            complete(&mut next, *task, gates, outcome.as_ref(), commit.as_deref(), now, &mut log)?
        }
        Change::Block { task, reason, needs } => {
            refine::block(&mut next, *task, reason, needs, now, &mut log)?
        }
        Change::ResolveBlocker { task } => {
            refine::resolve_blocker(&mut next, *task, now, &mut log)?
        }
        Change::Reopen { task, reason } => refine::reopen(&mut next, *task, reason, now, &mut log)?,
        Change::Restore { task, reason, active } => {
            restore::undo(&mut next, *task, reason, *active, now, &mut log)?
        }
        Change::Skip { task, reason } => {
            refine::skip(&mut next, *task, reason, &mut log)?;
            record_user_skip(&mut next, *task, reason, now);
        }
        Change::Retire { task, reason } => refine::retire(&mut next, *task, reason, &mut log)?,
        Change::Checkpoint { task, step, note } => {
            refine::checkpoint(&mut next, *task, step, note, now, &mut log)?
        }
        Change::Amend(input) => amend(&mut next, input, now, &mut log)?,
        Change::Pause { task, reason, needs, pause } => {
            refine::block(&mut next, *task, reason, needs, now, &mut log)?;
            if let Some(block) = next.task_mut(*task).and_then(|entry| entry.block.as_mut()) {
                block.pause = Some(pause.clone());
            }
        }
    }
    restore::withdraw_if_unfinished(&mut next, change.cause(), &mut log);
    stamp(&mut next, now, by);
    Ok(Applied { state: next, log })
}

/// Sets `updated_at`/`updated_by` and the derived fields: done before every write.
pub(crate) fn stamp(state: &mut PlanState, now: &str, by: &Author) {
    state.updated_at = now.to_owned();
    state.updated_by = Some(by.clone());
    state.refresh_derived();
}

fn add_task(
    state: &mut PlanState,
    id: u32,
    title: &str,
    phase: Option<&str>,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    if state.task(id).is_some() {
        return Err(Refusal::DuplicateTask { id });
    }
    let title = checked_text("the title", title, MAX_TITLE_CHARS)?;
    let phase = phase.map(one_line).filter(|phase| !phase.is_empty());
    log.push(format!("Task {id} added: {title}."));
    let locator = task_locator(state.format, id, &title);
    state.tasks.push(TaskEntry { locator, ..TaskEntry::pending(id, title, phase) });
    Ok(())
}

fn start(state: &mut PlanState, id: u32, now: &str, log: &mut Vec<String>) -> Result<(), Refusal> {
    let task = task_in(state, id)?;
    match task.status {
        Status::Completed => return Err(Refusal::AlreadyCompleted { task: id }),
        Status::Skipped => return Err(Refusal::TaskSkipped { task: id }),
        Status::Blocked => return Err(Refusal::TaskBlocked { task: id }),
        Status::Pending | Status::InProgress => {}
    }
    let verb = if task.started_at.is_some() { "resumed" } else { "started" };
    log.push(format!("Task {id} {verb}: {}.", task.title));
    make_current(state, id, now, log);
    Ok(())
}

fn record_gates(
    state: &mut PlanState,
    id: u32,
    gates: &[GateInput],
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    if gates.is_empty() {
        return Err(Refusal::Empty { what: "the list of gate runs" });
    }
    let task = task_in_mut(state, id)?;
    if task.status == Status::Skipped {
        return Err(Refusal::TaskSkipped { task: id });
    }
    upsert_gates(task, gates, now, log)?;
    if task.status != Status::Completed {
        return Ok(());
    }
    if let Err(refusal) = completion_allowed(task) {
        log.push(format!("Task {id} is no longer completed: {refusal}."));
        task.completed_at = None;
        task.status = Status::Pending;
        if !state.tasks.iter().any(|t| t.status == Status::InProgress) {
            make_current(state, id, now, log);
        }
    }
    Ok(())
}

/// Records each run in place of the earlier record of the same command.
fn upsert_gates(
    task: &mut TaskEntry,
    gates: &[GateInput],
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let records =
        gates.iter().map(|input| input.clone().into_record(now)).collect::<Result<Vec<_>, _>>()?;
    for (index, record) in records.iter().enumerate() {
        if records[..index].iter().any(|earlier| earlier.command == record.command) {
            return Err(Refusal::DuplicateGate { command: record.command.clone() });
        }
    }
    for record in records {
        log.push(format!("Task {} gate `{}`: {}.", task.id, record.command, describe_run(&record)));
        match task.gates.iter_mut().find(|gate| gate.command == record.command) {
            Some(earlier) => *earlier = record,
            None => task.gates.push(record),
        }
    }
    Ok(())
}

fn complete(
    state: &mut PlanState,
    id: u32,
    gates: &[GateInput],
    outcome: Option<&Outcome>,
    commit: Option<&str>,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let outcome = outcome.map(checked_outcome).transpose()?;
    let commit = commit.map(checked_commit).transpose()?;
    let task = task_in_mut(state, id)?;
    match task.status {
        Status::Completed => return Err(Refusal::AlreadyCompleted { task: id }),
        Status::Skipped => return Err(Refusal::TaskSkipped { task: id }),
        Status::Pending | Status::InProgress | Status::Blocked => {}
    }
    if gates.is_empty() {
        return Err(Refusal::NoGateAttached { task: id });
    }
    upsert_gates(task, gates, now, log)?;
    completion_allowed(task)?;
    task.status = Status::Completed;
    task.started_at.get_or_insert_with(|| now.to_owned());
    task.completed_at = Some(now.to_owned());
    task.block = None;
    if commit.is_some() {
        task.commit = commit;
    }
    if outcome.is_some() {
        task.outcome = outcome;
    }
    let worked = task
        .outcome
        .as_ref()
        .and_then(|o| o.worked.as_deref())
        .map(|w| format!(" — {w}"))
        .unwrap_or_default();
    log.push(format!("Task {id} completed: {}{worked}.", task.title));
    if state.checkpoint.as_ref().is_some_and(|c| c.task == id) {
        state.checkpoint = None;
    }
    Ok(())
}

/// Each entry of an outcome folded to one line and held to the note limit.
fn checked_outcome(outcome: &Outcome) -> Result<Outcome, Refusal> {
    let line = |text: &str| -> Result<String, Refusal> {
        let text = one_line(text);
        check_length("an outcome entry", &text, MAX_NOTE_CHARS, "one line each")?;
        Ok(text)
    };
    let list = |items: &[String]| -> Result<Vec<String>, Refusal> {
        items
            .iter()
            .map(|item| line(item))
            .filter(|item| !matches!(item, Ok(text) if text.is_empty()))
            .collect()
    };
    let optional = |text: &Option<String>| -> Result<Option<String>, Refusal> {
        Ok(text.as_deref().map(line).transpose()?.filter(|text| !text.is_empty()))
    };
    Ok(Outcome {
        tried: list(&outcome.tried)?,
        failed: list(&outcome.failed)?,
        worked: optional(&outcome.worked)?,
        notes: optional(&outcome.notes)?,
    })
}

/// A short commit hash: 7 to 40 hexadecimal digits.
fn checked_commit(commit: &str) -> Result<String, Refusal> {
    let commit = commit.trim();
    let hex = commit.chars().all(|c| c.is_ascii_hexdigit());
    if !hex || !(7..=40).contains(&commit.len()) {
        return Err(Refusal::BadCommit { value: commit.to_owned() });
    }
    Ok(commit.to_ascii_lowercase())
}
