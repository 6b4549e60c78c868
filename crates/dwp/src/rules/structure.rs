//! Structural checks of the two documents beyond what serde enforces: unique ids, locators
//! matching the format, timestamps, `completed_at` on completed tasks, `blocked` and
//! `checkpoint` naming real tasks. The updater refuses a state with any of these problems.

use std::collections::HashSet;

use super::documents::{
    LocatorKind, Manifest, Materialization, PlanFormat, PlanState, Status, TaskEntry,
    MANIFEST_SCHEMA, SPEC_VERSION, STATE_SCHEMA,
};
use super::text::parse_timestamp;

/// Every structural problem of `state`, as readable sentences; empty when it is sound.
pub(crate) fn state_problems(state: &PlanState) -> Vec<String> {
    let mut problems = Vec::new();
    if state.schema != STATE_SCHEMA {
        problems.push(format!("schema is {:?}, expected {STATE_SCHEMA}", state.schema));
    }
    if state.plan.trim().is_empty() {
        problems.push("plan (the plan's name) is empty".to_owned());
    }
    timestamp(&mut problems, "updated_at", Some(&state.updated_at));
    let promoting = state.materialization == Materialization::Promoting;
    if promoting != state.promotion.is_some() {
        problems.push(
            "promotion must be an object exactly while materialization is \"promoting\"".to_owned(),
        );
    }
    task_problems(state, promoting, &mut problems);
    reference_problems(state, &mut problems);
    problems
}

fn task_problems(state: &PlanState, promoting: bool, problems: &mut Vec<String>) {
    let mut seen = HashSet::new();
    for task in &state.tasks {
        let id = task.id;
        if !seen.insert(id) {
            problems.push(format!("task {id} has more than one entry"));
        }
        if task.title.trim().is_empty() {
            problems.push(format!("task {id} has an empty title"));
        }
        locator_problems(state.format, promoting, task, problems);
        timestamp(problems, &format!("task {id} started_at"), task.started_at.as_deref());
        timestamp(problems, &format!("task {id} completed_at"), task.completed_at.as_deref());
        for gate in &task.gates {
            let field = format!("task {id} gate `{}` last_run", gate.command);
            timestamp(problems, &field, Some(&gate.last_run));
        }
        if task.status == Status::Completed && task.completed_at.is_none() {
            problems.push(format!("task {id} is completed without completed_at"));
        }
    }
}

/// Lite plans point at README anchors (`#task-N`), Full plans at task files; during a
/// promotion both kinds may appear.
fn locator_problems(
    format: PlanFormat,
    promoting: bool,
    task: &TaskEntry,
    problems: &mut Vec<String>,
) {
    let (id, value) = (task.id, &task.locator.value);
    let expected_kind = match format {
        PlanFormat::Lite => LocatorKind::Inline,
        PlanFormat::Full => LocatorKind::File,
    };
    if task.locator.kind != expected_kind && !promoting {
        problems.push(format!("task {id}: a {format:?} plan needs {expected_kind:?} locators"));
    }
    let problem = match task.locator.kind {
        LocatorKind::Inline if *value != format!("#task-{id}") => "is not \"#task-N\" of its id",
        LocatorKind::File if value.is_empty() || value.contains(['/', '\\']) => {
            "is not a file name in the plan folder"
        }
        _ => return,
    };
    problems.push(format!("task {id}: locator {value:?} {problem}"));
}

fn reference_problems(state: &PlanState, problems: &mut Vec<String>) {
    if let Some(blocked) = &state.blocked {
        timestamp(problems, "blocked.since", Some(&blocked.since));
        match state.task(blocked.task) {
            None => {
                problems.push(format!("blocked names task {}, which does not exist", blocked.task))
            }
            Some(task) if task.status != Status::Blocked => problems.push(format!(
                "blocked names task {}, which is {}",
                blocked.task,
                task.status.as_str()
            )),
            Some(_) => {}
        }
    } else if let Some(task) = state.tasks.iter().find(|t| t.status == Status::Blocked) {
        problems.push(format!("task {} is blocked but the plan's blocked is null", task.id));
    }
    if let Some(checkpoint) = &state.checkpoint {
        timestamp(problems, "checkpoint.at", Some(&checkpoint.at));
        if state.task(checkpoint.task).is_none() {
            problems
                .push(format!("checkpoint names task {}, which does not exist", checkpoint.task));
        }
    }
}

/// Derived fields that do not match the tasks (the updater recomputes them on every write).
pub(crate) fn derived_problems(state: &PlanState) -> Vec<String> {
    let mut fresh = state.clone();
    fresh.refresh_derived();
    let mut problems = Vec::new();
    if fresh.task_count != state.task_count {
        problems.push(format!(
            "task_count is {}, but there are {} tasks",
            state.task_count, fresh.task_count
        ));
    }
    if fresh.completed_count != state.completed_count {
        problems.push(format!(
            "completed_count is {}, but {} tasks are completed",
            state.completed_count, fresh.completed_count
        ));
    }
    if fresh.status != state.status {
        problems.push(format!(
            "status is {}, but the tasks make it {}",
            state.status.as_str(),
            fresh.status.as_str()
        ));
    }
    problems
}

/// Every problem of `manifest`; empty when it is sound.
pub(crate) fn manifest_problems(manifest: &Manifest) -> Vec<String> {
    let mut problems = Vec::new();
    if manifest.schema != MANIFEST_SCHEMA {
        problems.push(format!("schema is {:?}, expected {MANIFEST_SCHEMA}", manifest.schema));
    }
    if version_numbers(&manifest.spec_version).is_none() {
        problems.push(format!("spec_version {:?} is not MAJOR.MINOR.PATCH", manifest.spec_version));
    }
    if !manifest.name.starts_with("PLAN_") {
        problems.push(format!("name {:?} does not start with PLAN_", manifest.name));
    }
    timestamp(&mut problems, "created_at", Some(&manifest.created_at));
    if let Some(author) = &manifest.created_by {
        if author.agent.trim().is_empty() {
            problems.push("created_by.agent is empty".to_owned());
        }
    }
    problems
}

/// Whether `spec_version` is newer than the specification this code implements.
pub(crate) fn is_newer_spec(spec_version: &str) -> bool {
    match (version_numbers(spec_version), version_numbers(SPEC_VERSION)) {
        (Some(theirs), Some(ours)) => theirs > ours,
        _ => false,
    }
}

fn version_numbers(version: &str) -> Option<(u64, u64, u64)> {
    let mut parts = version.split('.').map(|part| part.parse::<u64>().ok());
    let numbers = (parts.next()??, parts.next()??, parts.next()??);
    parts.next().is_none().then_some(numbers)
}

fn timestamp(problems: &mut Vec<String>, field: &str, value: Option<&str>) {
    if let Some(value) = value {
        if parse_timestamp(value).is_none() {
            problems.push(format!("{field} {value:?} is not an RFC 3339 timestamp"));
        }
    }
}
