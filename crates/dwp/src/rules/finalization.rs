//! The finaliser's verdict (seed 002, "Zweryfikowana publikacja planu"), pure: a finished
//! plan checked against every record before its publication, and the attestation of what
//! was actually checked, `FINALIZATION.json`. The verdict is VERIFIED only when
//! - every task is completed, or out of scope by an amendment (or the executor's own task,
//!   which the user never approved, dropped), and at least one is completed;
//! - every completed task's live gate records pass with evidence, and, where the caller
//!   ran a gate again (the engine does, in the chat's sandbox), the fresh run passes too;
//! - the plan-conformance check (the verifier's findings over the files on disk) is clean.
//!
//! Anything else is UNVERIFIED with the reasons, each naming its task. A gate nobody ran
//! again is attested as "record checked", never as a fresh pass.

use serde::Serialize;

use super::documents::{Author, PlanState, Status, TaskEntry};
use super::evidence::GateInput;
use super::evidence_states::{completion_basis, deferral_problems};
use super::findings::Finding;
use super::refinement::OWN_TASK_DROPPED;

/// `FINALIZATION.json`'s schema: Preflight's own document beside the seed's two.
pub(crate) const FINALIZATION_SCHEMA: &str =
    "https://preflight.local/schema/dwp-finalization/v1.json";

/// A gate run again just before finalising, by whoever can run it (never this crate).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Rerun {
    pub task: u32,
    pub run: GateInput,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Verdict {
    Verified,
    Unverified,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Verified => "VERIFIED",
            Verdict::Unverified => "UNVERIFIED",
        }
    }
}

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
    }
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
        status => reasons.push(format!("{named} is {}, not finished", status.as_str())),
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
        let fresh = reruns
            .iter()
            .find(|rerun| rerun.task == task.id && rerun.run.command.trim() == gate.command)
            .map(|rerun| fresh_run(&rerun.run));
        if let Some(fresh) = fresh.as_ref().filter(|_| task.status == Status::Completed) {
            if !fresh.passes {
                reasons.push(format!(
                    "{named}: its gate `{}` fails when run again (exit {}): {}",
                    gate.command, fresh.exit_code, fresh.evidence
                ));
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
