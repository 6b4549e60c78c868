//! Regenerating `state.json` from README.md when they disagree: Markdown wins (seed 002,
//! "Projekcja i uzgadnianie"), within the rule that nothing is completed without evidence.
//! Pure: the state after reconciliation and the PROGRESS.md lines recording it.
//!
//! - a box ticked in README over a task not completed in state: completed, if its live gate
//!   records allow it; otherwise refused (record the check first);
//! - an empty box over a completed task: the task is not done; it goes back to in_progress
//!   (pending when another task is in progress), its records kept;
//! - a task in README only: added as pending; a task in state only: refused (the user puts
//!   the box back or skips the task — removing work is a refinement, never a guess);
//! - the Approval line wins over `approval`.

use super::documents::{Author, PlanState, Status, TaskEntry};
use super::evidence::completion_allowed;
use super::readme::{ReadmeTask, ReadmeView};
use super::refusal::Refusal;
use super::task_file::task_locator;
use super::transition::{stamp, Applied};

/// `state` made to agree with `readme`, or the refusal; an empty log means they agreed.
pub(crate) fn reconcile(
    state: &PlanState,
    readme: &ReadmeView,
    now: &str,
    by: &Author,
) -> Result<Applied, Refusal> {
    let in_readme = |id: u32| readme.tasks.iter().any(|task| task.id == id);
    if let Some(missing) = state.tasks.iter().find(|task| !in_readme(task.id)) {
        return Err(Refusal::MissingFromReadme { task: missing.id });
    }
    let mut next = state.clone();
    let mut log = Vec::new();
    for task in &readme.tasks {
        if next.task(task.id).is_none() {
            add_from_readme(&mut next, task, &mut log);
        }
        let completed = next.task(task.id).is_some_and(|entry| entry.status == Status::Completed);
        match (task.checked, completed) {
            (true, false) => tick(&mut next, task.id, now, &mut log)?,
            (false, true) => untick(&mut next, task.id, &mut log),
            _ => {}
        }
    }
    if let Some(approval) = readme.approval.filter(|approval| state.approval != Some(*approval)) {
        log.push(format!("Approval taken from README.md: {}.", approval.as_str()));
        next.approval = Some(approval);
    }
    if log.is_empty() {
        return Ok(Applied { state: state.clone(), log });
    }
    log.insert(0, "Reconciled state.json with README.md (Markdown wins).".to_owned());
    stamp(&mut next, now, by);
    Ok(Applied { state: next, log })
}

/// What a sync makes of README.md before it writes (`follow_readme`): the state after the
/// reconciliation (an empty log when nothing moved), the boxes a person ticked that the
/// evidence does not allow (kept ticked, never silently emptied), and each disagreement in
/// words for the chat.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Followed {
    pub applied: Applied,
    pub ticked_by_hand: Vec<u32>,
    pub disagreements: Vec<String>,
}

/// The engine's reconciliation before a sync: Markdown wins where the evidence rule lets
/// it, and the rest is held as a disagreement instead of freezing the folder. A box ticked
/// without a passing check stays ticked while the task stays open; an emptied box reopens
/// its task. A checkbox removed or added by hand is refused: tasks come and go in the chat.
pub(crate) fn follow_readme(
    state: &PlanState,
    readme: &ReadmeView,
    now: &str,
    by: &Author,
) -> Result<Followed, Refusal> {
    let in_readme = |id: u32| readme.tasks.iter().any(|task| task.id == id);
    if let Some(missing) = state.tasks.iter().find(|task| !in_readme(task.id)) {
        return Err(Refusal::MissingFromReadme { task: missing.id });
    }
    if let Some(added) = readme.tasks.iter().find(|task| state.task(task.id).is_none()) {
        return Err(Refusal::AddedInReadme { task: added.id });
    }
    let (mut next, mut log) = (state.clone(), Vec::new());
    let (mut ticked_by_hand, mut disagreements) = (Vec::new(), Vec::new());
    for task in &readme.tasks {
        let entry = next.task(task.id).expect("checked above");
        match (task.checked, entry.status == Status::Completed) {
            (true, false) if completion_allowed(entry).is_ok() => {
                tick(&mut next, task.id, now, &mut log)?
            }
            (true, false) => {
                ticked_by_hand.push(task.id);
                disagreements.push(format!(
                    "task {} is ticked in README.md but has no passing check on file: it stays {}                      in state.json until Preflight's check passes (README.md keeps the tick)",
                    task.id,
                    entry.status.as_str()
                ));
            }
            (false, true) => {
                untick(&mut next, task.id, &mut log);
                disagreements.push(format!(
                    "task {}'s box was emptied in README.md: Markdown wins, so the plan files                      have it open again; finish it with a passing check, or tick the box back",
                    task.id
                ));
            }
            _ => {}
        }
    }
    if let Some(approval) = readme.approval.filter(|approval| state.approval != Some(*approval)) {
        log.push(format!("Approval taken from README.md: {}.", approval.as_str()));
        next.approval = Some(approval);
    }
    if log.is_empty() {
        let applied = Applied { state: state.clone(), log };
        return Ok(Followed { applied, ticked_by_hand, disagreements });
    }
    log.insert(0, "Reconciled state.json with README.md (Markdown wins).".to_owned());
    stamp(&mut next, now, by);
    Ok(Followed { applied: Applied { state: next, log }, ticked_by_hand, disagreements })
}

fn add_from_readme(state: &mut PlanState, task: &ReadmeTask, log: &mut Vec<String>) {
    let title =
        if task.title.trim().is_empty() { format!("task {}", task.id) } else { task.title.clone() };
    log.push(format!("Task {} added from README.md: {title}.", task.id));
    let locator = task_locator(state.format, task.id, &title);
    state.tasks.push(TaskEntry { locator, ..TaskEntry::pending(task.id, title, None) });
}

fn tick(state: &mut PlanState, id: u32, now: &str, log: &mut Vec<String>) -> Result<(), Refusal> {
    let task = state.task_mut(id).expect("checked by the caller");
    completion_allowed(task).map_err(|_| Refusal::CheckedWithoutEvidence { task: id })?;
    log.push(format!(
        "Task {id} completed: its box is ticked in README.md and its gates pass (was {}).",
        task.status.as_str()
    ));
    task.status = Status::Completed;
    task.completed_at = Some(now.to_owned());
    task.started_at.get_or_insert_with(|| now.to_owned());
    task.block = None;
    Ok(())
}

fn untick(state: &mut PlanState, id: u32, log: &mut Vec<String>) {
    let other_in_progress =
        state.tasks.iter().any(|t| t.id != id && t.status == Status::InProgress);
    let task = state.task_mut(id).expect("checked by the caller");
    task.status = if other_in_progress { Status::Pending } else { Status::InProgress };
    task.completed_at = None;
    log.push(format!(
        "Task {id} is not done: its box is empty in README.md (state.json said completed; now {}).",
        task.status.as_str()
    ));
}
