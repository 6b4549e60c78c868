//! The crate's tests beyond each file's own: data-driven tests of the pure rules (scripted
//! transition sessions snapshotted, the verifier's findings, reconciliation, property tests
//! of the updater) and tests on real plan folders (the documents field by field, concurrent
//! writers, SIGKILL during writes, v1 folders and their migration). They see the crate's
//! internals through the flat list below, as the engine's `dwp` module once exposed them.

#[cfg(unix)]
mod crash;
mod documents;
mod evidence_states;
mod findings;
mod finishing;
#[cfg(unix)]
mod hostile;
mod layout;
#[cfg(unix)]
mod lock;
mod migration;
#[cfg(unix)]
mod migration_crash;
mod reconciliation;
mod support;
mod transitions;
mod updater_props;
mod verdicts;

pub(crate) use crate::disk::audit::verify_plan;
pub(crate) use crate::disk::error::DwpError;
pub(crate) use crate::disk::folder::{
    read_manifest, read_state, sha256_hex, PlanFolder, MANIFEST_FILE, STATE_FILE,
};
pub(crate) use crate::disk::journal::has_pending_commit;
pub(crate) use crate::disk::lock::{break_stale_lock, LockOptions, LOCK_DIR};
pub(crate) use crate::disk::migration::{MANIFEST_V1_COPY, STATE_V1_COPY};
pub(crate) use crate::disk::request::{UpdateAction, UpdateRequest};
pub(crate) use crate::rules::documents::{
    ApprovalState, Author, GateRecord, Materialization, Outcome, PlanFormat, PlanState, Status,
    TaskEntry, STATE_SCHEMA,
};
pub(crate) use crate::rules::evidence::{admits_not_run, completion_allowed, GateInput};
pub(crate) use crate::rules::findings::{checkbox_findings, verify, FindingKind};
pub(crate) use crate::rules::readme::{parse_readme, render_task_block};
pub(crate) use crate::rules::reconciliation::reconcile;
pub(crate) use crate::rules::refusal::Refusal;
pub(crate) use crate::rules::structure::{derived_problems, state_problems};
pub(crate) use crate::rules::transition::{apply, Change};
pub(crate) use crate::PlanFolderWriter;

/// A timestamp `minute` minutes into the test day.
pub(crate) fn at(minute: u32) -> String {
    format!("2026-06-09T{:02}:{:02}:00Z", 14 + minute / 60, minute % 60)
}

pub(crate) fn by() -> Author {
    Author::preflight(Some("test-model"))
}

/// A ready Lite plan with one pending task per title, ids from 1.
pub(crate) fn plan(titles: &[&str]) -> PlanState {
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
        approval: Some(ApprovalState::Approved),
        promotion: None,
        tasks,
        checkpoint: None,
        blocked: None,
        amendments: Vec::new(),
        verification: None,
        withdrawn_verifications: Vec::new(),
        superseded: None,
        extra: Default::default(),
    };
    state.refresh_derived();
    state
}

pub(crate) fn pass(command: &str) -> GateInput {
    GateInput::new(command, 0, "12 passed, 0 failed")
}

pub(crate) fn fail(command: &str) -> GateInput {
    GateInput::new(command, 1, "2 failed")
}

/// `1:in_progress 2:pending …`, then the plan's status and blocker.
pub(crate) fn summary(state: &PlanState) -> String {
    let tasks: Vec<String> =
        state.tasks.iter().map(|t| format!("{}:{}", t.id, t.status.as_str())).collect();
    let blocked =
        state.blocked.as_ref().map(|b| format!(" blocked:{}", b.task)).unwrap_or_default();
    format!("{} | plan {}{blocked}", tasks.join(" "), state.status.as_str())
}
