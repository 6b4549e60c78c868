//! The finaliser's verdict (seed 002, "Zweryfikowana publikacja planu"), pure: a finished
//! plan checked against every record before its publication, and the attestation of what
//! was actually checked, `FINALIZATION.json`. The verdict is VERIFIED only when
//! - every task is completed, or out of scope by an amendment (or the executor's own task,
//!   which the user never approved, dropped), and at least one is completed;
//! - every completed task's live gate records pass with evidence, and each was run again
//!   just now (the engine does, in the chat's sandbox) and passed again: a record alone is
//!   never the basis of VERIFIED (seed 002: "an invented passing gate cannot be the basis");
//! - no more than half of the planned steps left the plan by the auto-approve setting
//!   alone (a standing approval is not the user's decision about this plan);
//! - the plan-conformance check (the verifier's findings over the files on disk) is clean.
//!
//! Anything else is UNVERIFIED with the reasons, each naming its task. A gate nobody ran
//! again is attested as "record checked", never as a fresh pass.

use serde::Serialize;

use super::documents::{AmendKind, Author, Authority, PlanState, Status, TaskEntry};
use super::evidence::GateInput;
use super::evidence_states::{completion_basis, deferral_problems};
use super::findings::Finding;
use super::refinement::OWN_TASK_DROPPED;

/// `FINALIZATION.json`'s schema: Preflight's own document beside the seed's two.
pub(crate) const FINALIZATION_SCHEMA: &str =
    "https://preflight.local/schema/dwp-finalization/v1.json";

/// A gate run again just before finalising, by whoever can run it (never this crate), or
/// the reason it was not (`ran` false: `run.evidence` says why; never filed as a run).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerun {
    pub task: u32,
    pub run: GateInput,
    pub ran: bool,
}

pub use super::documents::Verdict;

/// `FINALIZATION.json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Finalization {
    pub schema: &'static str,
    pub plan: String,
    pub verdict: Verdict,
    pub finalized_at: String,
    pub finalized_by: Author,
    /// SHA-256 of the `state.json` that was checked: the candidate.
    pub candidate_sha256: String,
    pub reasons: Vec<String>,
    pub tasks: Vec<TaskAttestation>,
    /// The conformance findings, as the verifier words them.
    pub conformance: Vec<String>,
    /// The steps of the plan as approved (the manifest's task count).
    pub planned: u32,
    /// Planned steps dropped by the chat's auto-approve setting, not by the user.
    pub dropped_without_user: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TaskAttestation {
    pub id: u32,
    pub title: String,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// The amendments that name this task.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub amendments: Vec<u32>,
    pub gates: Vec<GateAttestation>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GateAttestation {
    pub command: String,
    pub recorded: RunAttestation,
    /// The fresh run, or `None`: only the record was checked.
    pub rerun: Option<RunAttestation>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunAttestation {
    pub exit_code: i64,
    pub passes: bool,
    pub evidence: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
}

/// What the finaliser checks, from what it read.
pub(crate) struct Candidate<'a> {
    pub state: &'a PlanState,
    pub sha256: &'a str,
    pub conformance: &'a [Finding],
    pub reruns: &'a [Rerun],
    /// The manifest's task count: the steps as approved.
    pub planned: u32,
}

/// The verdict and its attestation for `candidate`, at `now`, by `by`.
pub(crate) fn finalize(candidate: &Candidate<'_>, now: &str, by: &Author) -> Finalization {
    let state = candidate.state;
    let mut reasons = Vec::new();
    if !state.tasks.iter().any(|task| task.status == Status::Completed) {
        reasons.push("no task is completed".to_owned());
    }
    let tasks: Vec<TaskAttestation> = state
        .tasks
        .iter()
        .map(|task| attest(state, task, candidate.reruns, &mut reasons))
        .collect();
    let conformance: Vec<String> = candidate.conformance.iter().map(ToString::to_string).collect();
    for finding in &conformance {
        reasons.push(format!("conformance: {finding}"));
    }
    let dropped_without_user = dropped_by_auto_approve(state, candidate.planned);
    if dropped_without_user * 2 > candidate.planned {
        reasons.push(format!(
            "{dropped_without_user} of {} planned steps were dropped by the auto-approve setting, without the user: more than half of the plan was never done",
            candidate.planned
        ));
    }
    let verdict = if reasons.is_empty() { Verdict::Verified } else { Verdict::Unverified };
    Finalization {
        schema: FINALIZATION_SCHEMA,
        plan: state.plan.clone(),
        verdict,
        finalized_at: now.to_owned(),
        finalized_by: by.clone(),
        candidate_sha256: candidate.sha256.to_owned(),
        reasons,
        tasks,
        conformance,
        planned: candidate.planned,
        dropped_without_user,
    }
}

/// Planned steps (ids up to `planned`) that left the plan by an approved drop whose only
/// authority was the auto-approve setting: approval by standing rule is not the user's.
fn dropped_by_auto_approve(state: &PlanState, planned: u32) -> u32 {
    let auto_drops = state.amendments.iter().filter(|record| {
        record.kind == AmendKind::Drop && record.authority == Authority::AutoApprove
    });
    let mut steps: Vec<u32> = auto_drops.flat_map(|record| record.tasks.iter().copied()).collect();
    steps.retain(|id| {
        *id <= planned && state.task(*id).is_some_and(|t| t.status == Status::Skipped)
    });
    steps.sort_unstable();
    steps.dedup();
    steps.len() as u32
}

fn attest(
    state: &PlanState,
    task: &TaskEntry,
    reruns: &[Rerun],
    reasons: &mut Vec<String>,
) -> TaskAttestation {
    let amendments: Vec<u32> = state
        .amendments
        .iter()
        .filter(|record| record.tasks.contains(&task.id))
        .map(|record| record.id)
        .collect();
    let named = format!("task {} “{}”", task.id, task.title);
    match task.status {
        Status::Completed => {
            if let Err(refusal) = completion_basis(state, task) {
                reasons.push(format!("{named}: {refusal}"));
            }
        }
        Status::Skipped if !amendments.is_empty() || is_own_task_dropped(task) => {}
        Status::Skipped => reasons.push(format!("{named} is skipped without an amendment")),
        status => reasons.push(open_task(&named, status, task.id, reruns)),
    }
    for problem in deferral_problems(state, task) {
        reasons.push(format!("{named}: {problem}"));
    }
    let mut gates = Vec::new();
    for gate in task.gates.iter().filter(|gate| gate.is_live()) {
        let recorded = RunAttestation {
            exit_code: gate.exit_code,
            passes: gate.passes,
            evidence: gate.evidence.clone(),
            at: Some(gate.last_run.clone()),
        };
        let rerun_of = |task: u32, command: &str| {
            reruns.iter().find(|rerun| rerun.task == task && rerun.run.command.trim() == command)
        };
        // A run that did not happen is attested too, saying why (never as a pass).
        let fresh = rerun_of(task.id, &gate.command).map(|rerun| fresh_run(&rerun.run));
        if task.status == Status::Completed {
            if let Some(reason) = unproven(&named, &gate.command, rerun_of(task.id, &gate.command))
            {
                reasons.push(reason);
            }
        }
        gates.push(GateAttestation { command: gate.command.clone(), recorded, rerun: fresh });
    }
    TaskAttestation {
        id: task.id,
        title: task.title.clone(),
        status: task.status,
        commit: task.commit.clone(),
        amendments,
        gates,
    }
}

/// Why an open task keeps the plan from its verdict: its check failing when run again just
/// now (which withdrew its completion), or that it is not finished.
fn open_task(named: &str, status: Status, task: u32, reruns: &[Rerun]) -> String {
    let failed = reruns.iter().filter(|rerun| rerun.task == task && rerun.ran);
    let failed = failed.map(|rerun| (rerun, fresh_run(&rerun.run))).find(|(_, run)| !run.passes);
    match failed {
        Some((rerun, run)) => format!(
            "{named}: its gate `{}` fails when run again (exit {}): {}; the task is open again",
            rerun.run.command, run.exit_code, run.evidence
        ),
        None => format!("{named} is {}, not finished", status.as_str()),
    }
}

/// Why a completed task's gate is not proven now: a record alone never is (seed 002: an
/// invented passing gate is never the basis of the verdict), nor a run that failed again.
fn unproven(named: &str, command: &str, rerun: Option<&Rerun>) -> Option<String> {
    let Some(rerun) = rerun else {
        return Some(format!(
            "{named}: its gate `{command}` was not run again, and a record alone is not proof"
        ));
    };
    if !rerun.ran {
        return Some(format!("{named}: its gate `{command}` {}", rerun.run.evidence));
    }
    let fresh = fresh_run(&rerun.run);
    (!fresh.passes).then(|| {
        format!(
            "{named}: its gate `{command}` fails when run again (exit {}): {}",
            fresh.exit_code, fresh.evidence
        )
    })
}

fn is_own_task_dropped(task: &TaskEntry) -> bool {
    let notes = task.outcome.as_ref().and_then(|outcome| outcome.notes.as_deref());
    notes.is_some_and(|notes| notes.starts_with(OWN_TASK_DROPPED))
}

/// A fresh run as attested: passing by the same rule as a record (exit 0 with evidence
/// that does not deny the run).
fn fresh_run(run: &GateInput) -> RunAttestation {
    let evidence = super::text::one_line(&run.evidence);
    // Judged by the record rule alone; when it ran is the attestation's, not the verdict's.
    let unstamped = GateInput { last_run: None, ..run.clone() };
    let passes = unstamped.into_record(super::documents::EPOCH).is_ok_and(|record| record.passes);
    RunAttestation { exit_code: run.exit_code, passes, evidence, at: run.last_run.clone() }
}
