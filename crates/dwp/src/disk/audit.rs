//! `verify` over a plan folder: reads every document (without repairing anything, and
//! without running crash recovery: tools other than the writer treat the files as
//! read-only; a v1 folder is checked as its v2 migration in memory, never migrated here) and
//! gathers the findings of `rules/findings.rs` plus what only the disk shows —
//! missing or malformed files, a pending `.commit`, a stale lock, a newer specification.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::DwpError;
use super::folder::{
    is_finalizing, parse_state, read_document, read_manifest, read_optional, read_text, sha256_hex,
    PlanFolder, ANALYSIS_DIR, FINALIZATION_FILE, README_FILE, STATE_FILE,
};
use super::journal::has_pending_commit;
use super::lock::{inspect, LockOptions, LockState};
use crate::rules::documents::{LocatorKind, PlanState, Status, Verdict};
use crate::rules::findings::{verify, Finding, FindingKind};
use crate::rules::readme::{first_status_word, parse_readme, ReadmeView};
use crate::rules::structure::derived_problems;

/// Everything `preflight dwp verify` reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyReport {
    pub plan: String,
    pub findings: Vec<Finding>,
    pub task_count: usize,
    pub completed_count: usize,
    /// SHA-256 of `state.json` as read, for a later `--expected-sha256`.
    pub sha256: Option<String>,
}

/// Verifies the plan folder `dir`. Only an unreadable folder is an error; every problem of
/// its contents is a finding.
pub fn verify_plan(dir: &PlanFolder, lock: LockOptions) -> Result<VerifyReport, DwpError> {
    audit_plan(dir, lock, false)
}

/// The verifier's work; `for_finaliser`: run by the finaliser itself, which holds the lock
/// and is about to write its own marker, so neither is a finding then.
pub(crate) fn audit_plan(
    dir: &PlanFolder,
    lock: LockOptions,
    for_finaliser: bool,
) -> Result<VerifyReport, DwpError> {
    let mut findings = Vec::new();
    if !for_finaliser {
        disk_findings(dir, lock, &mut findings);
    }
    if let Err(error) = read_manifest(dir) {
        let kind =
            if matches!(error, DwpError::NewerSpec { .. } | DwpError::UnsupportedSchema { .. }) {
                FindingKind::Version
            } else {
                FindingKind::Schema
            };
        findings.push(Finding::new(kind, None, error.to_string()));
    }
    let readme_text = read_optional(&dir.file(README_FILE))?;
    if readme_text.is_none() {
        findings.push(Finding::new(FindingKind::Schema, None, "README.md is missing"));
    }
    let readme = parse_readme(readme_text.as_deref().unwrap_or_default());
    let state_path = dir.file(STATE_FILE);
    let bytes = read_document(&state_path)?;
    let sha256 = Some(sha256_hex(&bytes));
    let (task_count, completed_count) = match parse_state(&state_path, &bytes) {
        Ok(read) => state_findings(dir, &readme, &read.document, &mut findings),
        Err(error) => {
            let kind = if matches!(error, DwpError::UnsupportedSchema { .. }) {
                FindingKind::Version
            } else {
                FindingKind::Schema
            };
            findings.push(Finding::new(kind, None, error.to_string()));
            (0, 0)
        }
    };
    Ok(VerifyReport { plan: dir.name(), findings, task_count, completed_count, sha256 })
}

fn disk_findings(dir: &PlanFolder, lock: LockOptions, findings: &mut Vec<Finding>) {
    if has_pending_commit(dir.path()) {
        let message = "an interrupted write is pending (.commit); the next update finishes it";
        findings.push(Finding::new(FindingKind::Interrupted, None, message));
    }
    if is_finalizing(dir) {
        let message = "a finalisation was interrupted (.finalizing.json): run `preflight dwp finalize` again; nothing resumes it by itself";
        findings.push(Finding::new(FindingKind::Interrupted, None, message));
    }
    if let LockState::Stale { owner, why, .. } = inspect(dir.path(), lock) {
        let message = format!("the .lock folder is stale ({why}; owner: {owner}); check no writer is running, then remove it");
        findings.push(Finding::new(FindingKind::Interrupted, None, message));
    }
}

fn state_findings(
    dir: &PlanFolder,
    readme: &ReadmeView,
    state: &PlanState,
    findings: &mut Vec<Finding>,
) -> (usize, usize) {
    for problem in derived_problems(state) {
        findings.push(Finding::new(FindingKind::Schema, None, format!("state.json: {problem}")));
    }
    let logs = task_logs(dir.path(), state, findings);
    findings.extend(verify(readme, state, &logs));
    verdict_findings(dir, state, findings);
    let completed = state.tasks.iter().filter(|t| t.status == Status::Completed).count();
    (state.tasks.len(), completed)
}

/// Where the finaliser's attestation and `state.json` disagree about the verdict: an
/// attestation whose verdict no longer holds (a task opened again after it), or a verdict
/// over a plan that is not finished — the folder would claim more than the truth.
fn verdict_findings(dir: &PlanFolder, state: &PlanState, findings: &mut Vec<Finding>) {
    let path = dir.file(ANALYSIS_DIR).join(FINALIZATION_FILE);
    let attested = read_optional(&path).ok().flatten().map(|text| {
        let value: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        value["verdict"].as_str().unwrap_or("an unreadable").to_owned()
    });
    let mut say =
        |message: String| findings.push(Finding::new(FindingKind::Contradiction, None, message));
    match (&attested, &state.verification) {
        (Some(verdict), None) => say(format!(
            "{ANALYSIS_DIR}/{FINALIZATION_FILE} says {verdict}, but state.json holds no verdict: the attestation no longer holds; run the finaliser again"
        )),
        (Some(verdict), Some(held)) if verdict != held.verdict.as_str() => say(format!(
            "{ANALYSIS_DIR}/{FINALIZATION_FILE} says {verdict}, but state.json's verdict is {}",
            held.verdict.as_str()
        )),
        (None, Some(held)) if held.withdrawn.is_none() => say(format!(
            "state.json holds a {} verdict but {ANALYSIS_DIR}/{FINALIZATION_FILE} is missing",
            held.verdict.as_str()
        )),
        _ => {}
    }
    let verified =
        state.verification.as_ref().is_some_and(|held| held.verdict == Verdict::Verified);
    if verified && !state.all_done() {
        say("state.json says VERIFIED over a plan with open tasks".to_owned());
    }
}

/// The `Status:` word of each task kept in its own file (Full plans).
fn task_logs(dir: &Path, state: &PlanState, findings: &mut Vec<Finding>) -> BTreeMap<u32, String> {
    let mut logs = BTreeMap::new();
    for task in state.tasks.iter().filter(|t| t.locator.kind == LocatorKind::File) {
        let Ok(text) = read_text(&dir.join(&task.locator.value)) else {
            let message = format!("its file {} is missing", task.locator.value);
            findings.push(Finding::new(FindingKind::Schema, Some(task.id), message));
            continue;
        };
        if let Some(status) = first_status_word(&text) {
            logs.insert(task.id, status);
        }
    }
    logs
}
