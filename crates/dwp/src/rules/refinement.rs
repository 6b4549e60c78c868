//! The transitions that stop, resume or re-scope a task: block, resolve the current
//! blocker, reopen (logging the evidence it invalidates first), the user's skip, and the
//! checkpoint before a pause. Pure, like the rest of `transition.rs`.

use crate::rules::documents::{Blocked, Checkpoint, Outcome, PlanState, Status, TaskBlock};
use crate::rules::refusal::Refusal;
use crate::rules::task_helpers::{
    describe_run, make_current, task_in, task_in_mut, MAX_NOTE_CHARS, MAX_TITLE_CHARS,
};
use crate::rules::text::{check_length, checked_text, one_line};

pub(crate) fn block(
    state: &mut PlanState,
    id: u32,
    reason: &str,
    needs: &str,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let reason = checked_text("the block reason", reason, MAX_NOTE_CHARS)?;
    let needs = one_line(needs);
    check_length("what the block needs", &needs, MAX_NOTE_CHARS, "say it in one line")?;
    let task = task_in_mut(state, id)?;
    match task.status {
        Status::Completed => return Err(Refusal::AlreadyCompleted { task: id }),
        Status::Skipped => return Err(Refusal::TaskSkipped { task: id }),
        Status::Pending | Status::InProgress | Status::Blocked => {}
    }
    task.status = Status::Blocked;
    let block = TaskBlock {
        reason: reason.clone(),
        since: now.to_owned(),
        needs: needs.clone(),
        pause: None,
    };
    task.block = Some(block);
    let needs_note = if needs.is_empty() { String::new() } else { format!(" (needs: {needs})") };
    log.push(format!("Task {id} blocked: {reason}{needs_note}."));
    state.blocked = Some(Blocked { task: id, reason, since: now.to_owned(), needs });
    Ok(())
}

pub(crate) fn resolve_blocker(
    state: &mut PlanState,
    id: u32,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    task_in(state, id)?;
    let current = state.blocked.as_ref().map(|blocked| blocked.task);
    if current != Some(id) {
        return Err(Refusal::NotCurrentBlocker { task: id, current });
    }
    let reason = state.blocked.take().map(|blocked| blocked.reason).unwrap_or_default();
    log.push(format!("Task {id} unblocked (was: {reason})."));
    let task = task_in_mut(state, id)?;
    task.block = None;
    task.status = Status::Pending;
    make_current(state, id, now, log);
    Ok(())
}

pub(crate) fn reopen(
    state: &mut PlanState,
    id: u32,
    reason: &str,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let reason = checked_text("the reopen reason", reason, MAX_NOTE_CHARS)?;
    let task = task_in_mut(state, id)?;
    if !matches!(task.status, Status::Completed | Status::Blocked | Status::Skipped) {
        return Err(Refusal::NothingToReopen { task: id, status: task.status });
    }
    // The seed: the amendment and the evidence it invalidates are logged before the state moves.
    log.push(format!("Task {id} reopened ({}): {reason}.", task.status.as_str()));
    for gate in task.gates.iter_mut().filter(|gate| gate.is_live()) {
        log.push(format!(
            "Task {id} gate `{}` invalidated by the reopen (was: {}).",
            gate.command,
            describe_run(gate)
        ));
        gate.invalidated = Some(format!("reopened at {now}: {reason}"));
    }
    task.completed_at = None;
    task.block = None;
    task.status = Status::Pending;
    if state.blocked.as_ref().is_some_and(|blocked| blocked.task == id) {
        state.blocked = None;
    }
    make_current(state, id, now, log);
    Ok(())
}

pub(crate) fn skip(
    state: &mut PlanState,
    id: u32,
    reason: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let reason = checked_text("the skip reason", reason, MAX_NOTE_CHARS)?;
    let line = format!("Task {id} skipped by the user: {reason}.");
    leave_plan(state, id, line, format!("skipped by the user: {reason}"), log)
}

/// How a retired task's outcome note begins: the finaliser counts such a task as closed
/// (it was never part of what the user approved).
pub(crate) const OWN_TASK_DROPPED: &str = "dropped by the executor (its own task)";

/// The executor's own task leaves the plan (`skipped`, said as its drop, not the user's).
pub(crate) fn retire(
    state: &mut PlanState,
    id: u32,
    reason: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let reason = checked_text("the drop reason", reason, MAX_NOTE_CHARS)?;
    let line = format!("Task {id}, added by the executor, dropped: {reason}.");
    leave_plan(state, id, line, format!("{OWN_TASK_DROPPED}: {reason}"), log)
}

/// Task `id` becomes `skipped` (refused when it is completed or skipped already): `line`
/// goes into PROGRESS.md, `note` into its outcome, and a blocker it held is cleared.
fn leave_plan(
    state: &mut PlanState,
    id: u32,
    line: String,
    note: String,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let task = task_in_mut(state, id)?;
    match task.status {
        Status::Completed => return Err(Refusal::AlreadyCompleted { task: id }),
        Status::Skipped => return Err(Refusal::TaskSkipped { task: id }),
        Status::Pending | Status::InProgress | Status::Blocked => {}
    }
    log.push(line);
    task.status = Status::Skipped;
    task.block = None;
    task.outcome.get_or_insert_with(Outcome::default).notes = Some(note);
    if state.blocked.as_ref().is_some_and(|blocked| blocked.task == id) {
        state.blocked = None;
    }
    Ok(())
}

pub(crate) fn checkpoint(
    state: &mut PlanState,
    id: u32,
    step: &str,
    note: &str,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let step = checked_text("the checkpoint step", step, MAX_TITLE_CHARS)?;
    let note = one_line(note);
    check_length("the checkpoint note", &note, MAX_NOTE_CHARS, "say it in one line")?;
    let task = task_in(state, id)?;
    if !matches!(task.status, Status::InProgress | Status::Blocked) {
        return Err(Refusal::NotInProgress { task: id, status: task.status });
    }
    log.push(format!("Checkpoint in task {id} at {step}: {note}."));
    state.checkpoint = Some(Checkpoint { task: id, step, at: now.to_owned(), note });
    Ok(())
}
