//! Gate records: building one from a validation run, the completion rule over a task's
//! records, and the refusal `turn_plan done` gets in a chat that writes `.dwp` files.
//!
//! `passes = exit_code == 0 && evidence non-empty` (DESIGN §6). Evidence that says the
//! check never ran ("never executed", "not run", "cannot be measured", seed 002) beside
//! exit code 0 is a contradiction: such a run is refused, and a record of it written by
//! anyone else never completes a task (and the verifier reports it).

use serde::Deserialize;
use thiserror::Error;

use super::documents::{GateRecord, TaskEntry, EPOCH};
use super::refusal::Refusal;
use super::text::{check_length, one_line, parse_timestamp};

/// A command is shown in README and PROGRESS; a long one is almost surely a script pasted.
pub(crate) const MAX_COMMAND_CHARS: usize = 300;
/// "krótki, czytelny dla człowieka ciąg evidence … nigdy pełne wyjście polecenia".
pub(crate) const MAX_EVIDENCE_CHARS: usize = 300;

/// Phrases (as word sequences) by which evidence admits that the check was not carried out.
const NOT_RUN_PHRASES: &[&str] = &[
    "never executed",
    "never ran",
    "never run",
    "never been run",
    "not executed",
    "not run",
    "did not run",
    "didn't run",
    "wasn't run",
    "was not run",
    "were not run",
    "not been run",
    "could not run",
    "couldn't run",
    "cannot run",
    "can't run",
    "cannot be measured",
    "can't be measured",
    "could not be measured",
    "not measurable",
    "unmeasurable",
    "nigdy nie wykonano",
    "nie wykonano",
    "nie uruchomiono",
    "nie da się zmierzyć",
    "nie można zmierzyć",
];

/// The closed gate object `--gate-json` takes: the record's fields, `passes` and
/// `last_run` optional (computed and stamped when absent, checked when present).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GateInput {
    pub command: String,
    pub exit_code: i64,
    pub evidence: String,
    #[serde(default)]
    pub passes: Option<bool>,
    #[serde(default)]
    pub last_run: Option<String>,
}

impl GateInput {
    pub fn new(command: &str, exit_code: i64, evidence: &str) -> GateInput {
        GateInput {
            command: command.to_owned(),
            exit_code,
            evidence: evidence.to_owned(),
            passes: None,
            last_run: None,
        }
    }

    /// The record of this run, stamped `now` unless the run says when it happened.
    pub(crate) fn into_record(self, now: &str) -> Result<GateRecord, Refusal> {
        let command = one_line(&self.command);
        if command.is_empty() {
            return Err(Refusal::EmptyCommand);
        }
        check_length(
            "the gate command",
            &command,
            MAX_COMMAND_CHARS,
            "record the command, not a script",
        )?;
        let evidence = one_line(&self.evidence);
        check_length(
            "the evidence",
            &evidence,
            MAX_EVIDENCE_CHARS,
            "summarise, e.g. \"42 passed, 0 failed\"",
        )?;
        let passes = self.exit_code == 0 && !evidence.is_empty();
        // A passing record whose own text denies the run would be a contradiction on file.
        if let Some(phrase) = admits_not_run(&evidence).filter(|_| passes) {
            return Err(Refusal::EvidenceDeniesRun { command, phrase: phrase.to_owned() });
        }
        if let Some(claimed) = self.passes.filter(|claimed| *claimed != passes) {
            let evidence_empty = evidence.is_empty();
            return Err(Refusal::PassesContradicts {
                claimed,
                computed: passes,
                exit_code: self.exit_code,
                evidence_empty,
            });
        }
        let last_run = match self.last_run {
            Some(last_run) => checked_past_timestamp("last_run", &last_run, now)?,
            None => now.to_owned(),
        };
        Ok(GateRecord {
            command,
            passes,
            exit_code: self.exit_code,
            last_run,
            evidence,
            invalidated: None,
            extra: Default::default(),
        })
    }
}

/// The phrase by which `evidence` admits the check never ran, if it does.
pub(crate) fn admits_not_run(evidence: &str) -> Option<&'static str> {
    let words = words(evidence);
    NOT_RUN_PHRASES.iter().copied().find(|phrase| {
        let phrase: Vec<String> = self::words(phrase);
        words.windows(phrase.len()).any(|window| window == phrase.as_slice())
    })
}

/// Whether the task's live gate records allow it to be `completed`: at least one, every one
/// passing (a retry replaces its own command's record, so a failing record has no later
/// passing run), each with evidence that does not deny the run.
pub(crate) fn completion_allowed(task: &TaskEntry) -> Result<(), Refusal> {
    gates_allow_completion(task.id, &task.gates)
}

fn gates_allow_completion(task: u32, gates: &[GateRecord]) -> Result<(), Refusal> {
    let live: Vec<&GateRecord> = gates.iter().filter(|gate| gate.is_live()).collect();
    if live.is_empty() {
        return Err(Refusal::NoGateAttached { task });
    }
    for gate in live {
        let command = gate.command.clone();
        if gate.exit_code != 0 {
            return Err(Refusal::GateFails { task, command, exit_code: gate.exit_code });
        }
        if gate.evidence.trim().is_empty() {
            return Err(Refusal::GateWithoutEvidence { task, command });
        }
        if !gate.passes {
            return Err(Refusal::GateFails { task, command, exit_code: gate.exit_code });
        }
        if let Some(phrase) = admits_not_run(&gate.evidence) {
            return Err(Refusal::EvidenceAdmitsNotRun { task, command, phrase: phrase.to_owned() });
        }
    }
    Ok(())
}

/// Why `turn_plan done` was refused in a chat that writes `.dwp` files: the text the
/// model reads.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DoneRefusal {
    #[error("task {task} is not marked done: this plan is saved in .dwp/plans and needs a passing check. {RUN_IT}")]
    NoGate { task: u32 },
    #[error("the gate was refused: {0}")]
    BadGate(Refusal),
    #[error("{0}. The task stays open; when the check passes, call done with its gate")]
    Fails(Refusal),
}

const RUN_IT: &str = "Say which command proves it (its tests, a build, a command whose output shows the result) and \
     Preflight runs it in the sandbox: call done again with gate:{\"command\":\"…\"}. An exit code or \
     evidence you write yourself is not read; only the run Preflight measures counts";

/// In a chat that writes `.dwp` files, `done` on `task` needs a passing gate run.
pub fn check_done(task: u32, gate: Option<GateInput>) -> Result<(), DoneRefusal> {
    let gate = gate.ok_or(DoneRefusal::NoGate { task })?;
    // The timestamp is irrelevant to the verdict; the real record is stamped when synced.
    let record = gate.into_record(EPOCH).map_err(DoneRefusal::BadGate)?;
    gates_allow_completion(task, &[record]).map_err(DoneRefusal::Fails)
}

/// `value` as given when it is a timestamp not later than `now`.
fn checked_past_timestamp(field: &'static str, value: &str, now: &str) -> Result<String, Refusal> {
    let parsed = parse_timestamp(value)
        .ok_or_else(|| Refusal::BadTimestamp { field, value: value.to_owned() })?;
    if parse_timestamp(now).is_some_and(|now| parsed > now) {
        return Err(Refusal::FutureTimestamp { field, value: value.to_owned() });
    }
    Ok(value.to_owned())
}

/// Lower-case words: letters, digits and apostrophes.
fn words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .replace('’', "'")
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .filter(|word| !word.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_that_denies_the_run_is_caught_by_words_not_substrings() {
        let table = [
            ("42 passed, 0 failed", None),
            ("Never executed: no device", Some("never executed")),
            ("tests not run", Some("not run")),
            ("the check is not running out of memory", None),
            ("latency cannot be measured here", Some("cannot be measured")),
            ("I didn’t run it", Some("didn't run")),
            ("nie uruchomiono testów", Some("nie uruchomiono")),
            ("3 passed, 2 skipped", None),
        ];
        for (evidence, expected) in table {
            assert_eq!(admits_not_run(evidence), expected, "{evidence}");
        }
    }

    #[test]
    fn passes_is_computed_and_a_contradicting_claim_is_refused() {
        let now = "2026-06-09T15:00:00Z";
        // (exit code, evidence, claimed passes, the record's passes or None when refused)
        let table = [
            (0, "42 passed", None, Some(true)),
            (0, "   ", None, Some(false)),
            (1, "3 failed", None, Some(false)),
            (0, "42 passed", Some(true), Some(true)),
            (1, "3 failed", Some(true), None),
            (0, "", Some(true), None),
        ];
        for (exit_code, evidence, claimed, expected) in table {
            let input =
                GateInput { passes: claimed, ..GateInput::new("cargo test", exit_code, evidence) };
            let got = input.into_record(now).ok().map(|record| record.passes);
            assert_eq!(got, expected, "{exit_code} {evidence:?} {claimed:?}");
        }
    }

    #[test]
    fn last_run_is_stamped_or_checked() {
        let now = "2026-06-09T15:00:00Z";
        let stamped = GateInput::new("make", 0, "ok").into_record(now).unwrap();
        assert_eq!(stamped.last_run, now);
        let earlier = GateInput {
            last_run: Some("2026-06-09T14:00:00Z".into()),
            ..GateInput::new("make", 0, "ok")
        };
        assert_eq!(earlier.into_record(now).unwrap().last_run, "2026-06-09T14:00:00Z");
        let future = GateInput {
            last_run: Some("2027-01-01T00:00:00Z".into()),
            ..GateInput::new("make", 0, "ok")
        };
        assert!(matches!(future.into_record(now), Err(Refusal::FutureTimestamp { .. })));
        let garbage =
            GateInput { last_run: Some("yesterday".into()), ..GateInput::new("make", 0, "ok") };
        assert!(matches!(garbage.into_record(now), Err(Refusal::BadTimestamp { .. })));
    }

    #[test]
    fn limits_are_refusals() {
        let long = "x".repeat(MAX_EVIDENCE_CHARS + 1);
        assert!(matches!(
            GateInput::new("make", 0, &long).into_record("2026-01-01T00:00:00Z"),
            Err(Refusal::TooLong { .. })
        ));
        assert_eq!(
            GateInput::new("  ", 0, "ok").into_record("2026-01-01T00:00:00Z"),
            Err(Refusal::EmptyCommand)
        );
    }
}
