//! Why a rule said no: `Refusal`, a transition or record the seed forbids. The state is
//! left exactly as it was; the message says what to do next.

use thiserror::Error;

use super::documents::Status;

/// A state transition the seed's rules forbid. The state is left exactly as it was.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Refusal {
    #[error("no task {id} in state.json; tasks: {}", ids(.live))]
    NoSuchTask { id: u32, live: Vec<u32> },
    #[error("task {id} is already in state.json")]
    DuplicateTask { id: u32 },
    #[error("a gate needs a command")]
    EmptyCommand,
    #[error("{what} has {chars} characters; the limit is {limit}: {hint}")]
    TooLong { what: &'static str, chars: usize, limit: usize, hint: &'static str },
    #[error("the gate says passes:{claimed}, but exit code {exit_code} with {} evidence means passes:{computed}", if *.evidence_empty { "empty" } else { "this" })]
    PassesContradicts { claimed: bool, computed: bool, exit_code: i64, evidence_empty: bool },
    #[error("gate `{command}` exits 0 but its evidence says the check was not carried out ({phrase:?}): run the check, or record the run that did not happen with a non-zero exit code")]
    EvidenceDeniesRun { command: String, phrase: String },
    #[error("gate `{command}` appears twice in one update; send each command's run once")]
    DuplicateGate { command: String },
    #[error("{field} {value:?} is not an RFC 3339 timestamp")]
    BadTimestamp { field: &'static str, value: String },
    #[error("{field} {value:?} is in the future")]
    FutureTimestamp { field: &'static str, value: String },
    #[error("{what} must not be empty")]
    Empty { what: &'static str },
    #[error("task {task} cannot be completed without a gate run attached: run its check and pass the result (--gate or --gate-json)")]
    NoGateAttached { task: u32 },
    #[error("task {task} cannot be completed: gate `{command}` fails (exit code {exit_code}) and has no later passing run; fix it and run the check again")]
    GateFails { task: u32, command: String, exit_code: i64 },
    #[error("task {task} cannot be completed: gate `{command}` has no evidence; record a short summary of what the check showed")]
    GateWithoutEvidence { task: u32, command: String },
    #[error("task {task} cannot be completed: the evidence of gate `{command}` says the check was not carried out ({phrase:?}); a passing record needs a run")]
    EvidenceAdmitsNotRun { task: u32, command: String, phrase: String },
    #[error("task {task} is already completed; reopen it with a reason first")]
    AlreadyCompleted { task: u32 },
    #[error("task {task} was skipped by the user; reopen it with a reason first")]
    TaskSkipped { task: u32 },
    #[error("task {task} is blocked; resolve its blocker first")]
    TaskBlocked { task: u32 },
    #[error("nothing is blocked; there is no blocker to resolve")]
    NothingBlocked,
    #[error("{}", not_current(*.task, *.current))]
    NotCurrentBlocker { task: u32, current: Option<u32> },
    #[error("task {task} is {}; only a completed, blocked or skipped task can be reopened", .status.as_str())]
    NothingToReopen { task: u32, status: Status },
    #[error("a checkpoint belongs to the task in progress; task {task} is {}", .status.as_str())]
    NotInProgress { task: u32, status: Status },
    #[error("commit {value:?} is not a short hexadecimal hash (7 to 40 characters)")]
    BadCommit { value: String },
    #[error("task {task} is in state.json but not in README.md; put its checkbox back, or skip it with a reason")]
    MissingFromReadme { task: u32 },
    #[error("README.md has a checkbox for task {task}, which the plan does not have: tasks are added in the chat, not in README.md; remove that line")]
    AddedInReadme { task: u32 },
    #[error("README.md shows task {task} checked but it has no passing gate run in state.json; run its check and record it (--gate-json) before reconciling")]
    CheckedWithoutEvidence { task: u32 },
    #[error("the plan has no UNVERIFIED verdict waiting for the user ({why}); nothing to accept")]
    NothingToAccept { why: &'static str },
    #[error("task {task}'s criterion cannot be deferred to task {target}: {why}")]
    BadDeferral { task: u32, target: u32, why: &'static str },
    #[error("a deferral names the task its criterion moves to (--defer-to N)")]
    NoDeferTarget,
    #[error("task {task} has no investigation on record: record what it found first (--investigation TEXT)")]
    NoInvestigation { task: u32 },
}

fn ids(live: &[u32]) -> String {
    if live.is_empty() {
        return "none".to_owned();
    }
    live.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

fn not_current(task: u32, current: Option<u32>) -> String {
    match current {
        None => format!("nothing is blocked; task {task} has no blocker to resolve"),
        Some(current) => format!(
            "task {task} is not the current task: only the current blocker (task {current}) can be resolved"
        ),
    }
}
