//! Two of seed 002's five evidence states that need records of their own ("Prawdziwość
//! dowodów i poprawki"), pure:
//! - a **deferred requirement**: an amendment of kind `defer` moves a task's criterion to a
//!   named target task with its authority; only that amendment closes the source, which
//!   becomes `skipped` (the seed's closed status list has no other word for a task closed
//!   without its own product outcome) with its records kept as history;
//! - a **completed investigation**: real work recorded on a task (`investigation`, an
//!   additive field), which closes the task only through an amendment of kind
//!   `investigation` that changes its criterion and names that record — never against the
//!   criterion as first written. The task is then `completed` without a gate of its own;
//!   this module is the one place that says when that is honest.
//!
//! The other three states need no new record: a failed gate stays failing until its own
//! command passes (`evidence.rs`), a product outcome is a completion by its own gate, and a
//! scenario not run is a gate whose evidence denies the run (refused, and reported).

use super::documents::{AmendKind, Investigation, Outcome, PlanState, Status, TaskEntry};
use super::evidence::completion_allowed;
use super::input::AmendmentInput;
use super::refusal::Refusal;
use super::task_helpers::{task_in, task_in_mut, MAX_NOTE_CHARS};
use super::text::checked_text;

/// An investigation's findings, one line.
pub(crate) const MAX_FINDINGS_CHARS: usize = 500;

/// The state with `findings` recorded as task `id`'s investigation at `now` (replacing an
/// earlier one not yet closed), and its PROGRESS.md line; the caller stamps it. The task's
/// status does not move: an investigation closes nothing by itself.
pub(crate) fn record_investigation(
    state: &PlanState,
    id: u32,
    findings: &str,
    now: &str,
) -> Result<(PlanState, Vec<String>), Refusal> {
    let findings = checked_text("the investigation's findings", findings, MAX_FINDINGS_CHARS)?;
    let mut next = state.clone();
    let task = task_in_mut(&mut next, id)?;
    match task.status {
        Status::Completed => return Err(Refusal::AlreadyCompleted { task: id }),
        Status::Skipped => return Err(Refusal::TaskSkipped { task: id }),
        Status::Pending | Status::InProgress | Status::Blocked => {}
    }
    let log = vec![format!("Task {id} investigation recorded: {findings}.")];
    task.investigation = Some(Investigation { at: now.to_owned(), findings });
    Ok((next, log))
}

/// Checks a deferral before anything moves: a target that exists, is not a source, and is
/// still open (a completed target's evidence predates the criterion; a skipped one would
/// carry it nowhere); sources that are not completed (their own gate closed them).
pub(crate) fn check_deferral(state: &PlanState, input: &AmendmentInput) -> Result<u32, Refusal> {
    let target = input.target.ok_or(Refusal::NoDeferTarget)?;
    for source in &input.tasks {
        let bad = |why| Refusal::BadDeferral { task: *source, target, why };
        if *source == target {
            return Err(bad("a task cannot take its own criterion"));
        }
        if task_in(state, *source)?.status == Status::Completed {
            return Err(bad("it is completed by its own gate; reopen it first"));
        }
        let Some(target_task) = state.task(target) else {
            return Err(bad("the plan has no such task"));
        };
        match target_task.status {
            Status::Completed => return Err(bad("the target is completed; reopen it first")),
            Status::Skipped => return Err(bad("the target is skipped")),
            Status::Pending | Status::InProgress | Status::Blocked => {}
        }
    }
    Ok(target)
}

/// The investigation each task of a closing amendment names: every task needs one, and
/// one amendment names one investigation (the first task's).
pub(crate) fn named_investigation(state: &PlanState, tasks: &[u32]) -> Result<String, Refusal> {
    let mut named = None;
    for id in tasks {
        let task = task_in(state, *id)?;
        let record = task.investigation.as_ref().ok_or(Refusal::NoInvestigation { task: *id })?;
        if matches!(task.status, Status::Completed | Status::Skipped) {
            return Err(Refusal::AlreadyCompleted { task: *id });
        }
        named.get_or_insert_with(|| record.at.clone());
    }
    named.ok_or(Refusal::Empty { what: "the amendment's list of tasks" })
}

/// Closes `task` against its changed criterion, amendment `amendment`'s: completed now.
pub(crate) fn close_by_investigation(task: &mut TaskEntry, now: &str) {
    task.status = Status::Completed;
    task.started_at.get_or_insert_with(|| now.to_owned());
    task.completed_at = Some(now.to_owned());
    task.block = None;
}

/// Whether `task` is closed by a completed investigation: it has one, and an amendment of
/// kind `investigation` names this task and that record.
pub(crate) fn investigation_closes(state: &PlanState, task: &TaskEntry) -> bool {
    let Some(record) = &task.investigation else { return false };
    state.amendments.iter().any(|amendment| {
        amendment.kind == AmendKind::Investigation
            && amendment.tasks.contains(&task.id)
            && amendment.investigation.as_deref() == Some(record.at.as_str())
    })
}

/// Whether a completed task rests on an honest basis: its own gate, or an investigation an
/// amendment names. The finaliser's rule, in words when it does not.
pub(crate) fn completion_basis(state: &PlanState, task: &TaskEntry) -> Result<(), String> {
    match completion_allowed(task) {
        Ok(()) => Ok(()),
        Err(_) if investigation_closes(state, task) => Ok(()),
        Err(_) if task.investigation.is_some() => Err(INVESTIGATION_UNNAMED.to_owned()),
        Err(refusal) => Err(refusal.to_string()),
    }
}

const INVESTIGATION_UNNAMED: &str = "completed on an investigation that no amendment names: an \
    investigation closes a task only against a changed criterion naming it, never against the \
    original";

/// The problems of `task`'s evidence state, for the verifier and the finaliser: a completed
/// task resting on an investigation no amendment names, an amendment naming an
/// investigation the task does not have, and a deferred criterion whose target (followed
/// through further deferrals) is missing or skipped — a criterion that is never met.
pub(crate) fn evidence_state_problems(state: &PlanState, task: &TaskEntry) -> Vec<String> {
    let mut problems = Vec::new();
    let on_gates = completion_allowed(task).is_ok();
    let on_investigation = task.investigation.is_some();
    if task.status == Status::Completed
        && !on_gates
        && on_investigation
        && !investigation_closes(state, task)
    {
        problems.push(INVESTIGATION_UNNAMED.to_owned());
    }
    for amendment in state.amendments.iter().filter(|a| a.kind == AmendKind::Investigation) {
        let has = task.investigation.as_ref().map(|record| record.at.as_str());
        if amendment.tasks.contains(&task.id) && amendment.investigation.as_deref() != has {
            problems.push(format!(
                "amendment {} names an investigation the task does not have on record",
                amendment.id
            ));
        }
    }
    problems.extend(deferral_problems(state, task));
    problems
}

/// A skipped task's deferred criterion that is never met, in words; empty otherwise.
pub(crate) fn deferral_problems(state: &PlanState, task: &TaskEntry) -> Vec<String> {
    match task.status {
        Status::Skipped => deferral_problem(state, task.id).into_iter().collect(),
        _ => Vec::new(),
    }
}

/// Where a deferred criterion of `source` ended, followed through deferrals; a problem when
/// that task is missing or skipped (its criterion then is never met).
fn deferral_problem(state: &PlanState, source: u32) -> Option<String> {
    let deferral_of = |id: u32| {
        state.amendments.iter().rev().find(|a| a.kind == AmendKind::Defer && a.tasks.contains(&id))
    };
    let mut target = deferral_of(source)?.target?;
    for _ in 0..state.tasks.len() {
        let Some(task) = state.task(target) else {
            return Some(format!(
                "its criterion was deferred to task {target}, which the plan does not have"
            ));
        };
        if task.status != Status::Skipped {
            return None;
        }
        match deferral_of(target).and_then(|amendment| amendment.target) {
            Some(next) => target = next,
            None => {
                return Some(format!(
                    "its criterion was deferred to task {target}, which is skipped: the deferred criterion is never met"
                ))
            }
        }
    }
    Some("its criterion's deferrals go round in a circle: it is never met".to_owned())
}

/// A deferred source leaves the plan's scope: `skipped`, with a note naming its target.
pub(crate) fn defer_source(task: &mut TaskEntry, target: u32, amendment: u32, observed: &str) {
    task.status = Status::Skipped;
    task.completed_at = None;
    task.block = None;
    let note = format!("criterion deferred to task {target} by amendment {amendment}: {observed}");
    let note: String = note.chars().take(MAX_NOTE_CHARS).collect();
    task.outcome.get_or_insert_with(Outcome::default).notes = Some(note);
}
