//! Data-driven tests of the pure parts: scripted transition sessions snapshotted, the
//! tracker-to-state mapping, the verifier's findings and reconciliation.

mod reconcile;
mod sync;
mod transitions;
mod verify;

use super::{
    Author, GateInput, Materialization, PlanFormat, PlanState, Status, TaskEntry, STATE_SCHEMA,
};

/// A timestamp `minute` minutes into the test day.
pub(super) fn at(minute: u32) -> String {
    format!("2026-06-09T{:02}:{:02}:00Z", 14 + minute / 60, minute % 60)
}

pub(super) fn by() -> Author {
    Author::preflight(Some("test-model"))
}

/// A ready Lite plan with one pending task per title, ids from 1.
pub(super) fn plan(titles: &[&str]) -> PlanState {
    let tasks = titles
        .iter()
        .zip(1..)
        .map(|(title, id)| TaskEntry::pending(id, (*title).to_owned(), None))
        .collect();
    let mut state = PlanState {
        schema: STATE_SCHEMA.to_owned(),
        plan: "PLAN_test".to_owned(),
        updated_at: at(0),
        updated_by: None,
        status: Status::Pending,
        completed_count: 0,
        task_count: 0,
        format: PlanFormat::Lite,
        materialization: Materialization::Ready,
        approval: Some(super::ApprovalState::Approved),
        promotion: None,
        tasks,
        checkpoint: None,
        blocked: None,
        extra: Default::default(),
    };
    state.refresh_derived();
    state
}

pub(super) fn pass(command: &str) -> GateInput {
    GateInput::new(command, 0, "12 passed, 0 failed")
}

pub(super) fn fail(command: &str) -> GateInput {
    GateInput::new(command, 1, "2 failed")
}

/// `1:in_progress 2:pending …`, then the plan's status and blocker.
pub(super) fn summary(state: &PlanState) -> String {
    let tasks: Vec<String> =
        state.tasks.iter().map(|t| format!("{}:{}", t.id, t.status.as_str())).collect();
    let blocked =
        state.blocked.as_ref().map(|b| format!(" blocked:{}", b.task)).unwrap_or_default();
    format!("{} | plan {}{blocked}", tasks.join(" "), state.status.as_str())
}
