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

fn add_from_readme(state: &mut PlanState, task: &ReadmeTask, log: &mut Vec<String>) {
    let title =
        if task.title.trim().is_empty() { format!("task {}", task.id) } else { task.title.clone() };
    log.push(format!("Task {} added from README.md: {title}.", task.id));
    state.tasks.push(TaskEntry::pending(task.id, title, None));
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
