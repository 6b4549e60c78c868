//! The helpers every transition shares (`transition.rs` and `refinement.rs`): the text
//! limits, finding a task in the state, making one current, and a gate run said in words.
//! Pure, like the transitions themselves.

use crate::rules::documents::{GateRecord, PlanState, Status, TaskEntry};
use crate::rules::refusal::Refusal;

/// Reasons, notes and outcome lines: one line each, like the tracker's outcomes.
pub const MAX_NOTE_CHARS: usize = 200;
/// Task titles and checkpoint steps; the engine's tracker holds titles to the same limit.
pub const MAX_TITLE_CHARS: usize = 120;

/// `id` in progress (started now unless it was before); any other task in progress pauses.
pub(crate) fn make_current(state: &mut PlanState, id: u32, now: &str, log: &mut Vec<String>) {
    for task in &mut state.tasks {
        if task.id == id {
            task.status = Status::InProgress;
            task.started_at.get_or_insert_with(|| now.to_owned());
        } else if task.status == Status::InProgress {
            task.status = Status::Pending;
            log.push(format!("Task {} paused.", task.id));
        }
    }
}

/// "passes (exit 0) — 42 passed" / "fails (exit 1) — 3 failed".
pub(crate) fn describe_run(gate: &GateRecord) -> String {
    let verdict = if gate.passes { "passes" } else { "fails" };
    let evidence = if gate.evidence.is_empty() { "no evidence" } else { gate.evidence.as_str() };
    format!("{verdict} (exit {}) — {evidence}", gate.exit_code)
}

pub(crate) fn task_in(state: &PlanState, id: u32) -> Result<&TaskEntry, Refusal> {
    state.task(id).ok_or_else(|| no_such_task(state, id))
}

pub(crate) fn task_in_mut(state: &mut PlanState, id: u32) -> Result<&mut TaskEntry, Refusal> {
    let refusal = no_such_task(state, id);
    state.task_mut(id).ok_or(refusal)
}

fn no_such_task(state: &PlanState, id: u32) -> Refusal {
    Refusal::NoSuchTask { id, live: state.tasks.iter().map(|task| task.id).collect() }
}
