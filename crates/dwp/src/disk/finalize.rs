//! The finaliser on disk: `PlanFolderWriter::finalize` checks a finished plan's candidate
//! state against every artefact and publishes the attestation
//! `analysis_results/FINALIZATION.json`, with `.finalizing.json` as the in-progress marker.
//!
//! Order, under the plan's lock: read and check the documents; run the conformance check
//! (the verifier) over the files as they are; write the marker (naming the candidate's
//! SHA-256); write FINALIZATION.json atomically; add the verdict to PROGRESS.md through the
//! journal; remove the marker. A crash at any point leaves the old attestation or the new
//! one, never a torn file, and a marker the verifier reports; the next `finalize` checks
//! everything again from the start — an interrupted publication is never resumed by
//! presumption — and says that it found one.

use std::fs;
use std::path::PathBuf;

use preflight_files::{read_regular_capped, write_atomic};
use serde::{Deserialize, Serialize};

use super::audit::audit_plan;
use super::error::DwpError;
use super::folder::{check_real_folders, read_manifest, to_json, PlanFolder, FINALIZING_FILE};
use super::writer::Writer;
use crate::disk::plan_files::PlanFolderWriter;
use crate::rules::documents::{Acceptance, PlanState, Status, Verification};
use crate::rules::finalization::{finalize, Candidate, Finalization, Rerun, Verdict};
use crate::rules::refusal::Refusal;
use crate::rules::restore::history_name;
use crate::rules::transition::{stamp, Applied, Change};

pub(crate) use super::folder::{ANALYSIS_DIR, FINALIZATION_FILE};
const MARKER_CAP: usize = 64 * 1024;

/// What the marker says: which candidate was being published, since when, by which process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Marker {
    candidate_sha256: String,
    started_at: String,
    pid: u32,
}

/// What `finalize` did.
#[derive(Debug, Clone, PartialEq)]
pub struct FinalizeReport {
    pub finalization: Finalization,
    /// FINALIZATION.json's path.
    pub path: PathBuf,
    /// An interrupted finalisation's marker was found (and everything checked again).
    pub recovered: Option<String>,
    /// Tasks whose gate failed when run again: their completion was withdrawn.
    pub reopened: Vec<u32>,
}

impl FinalizeReport {
    pub fn verdict(&self) -> Verdict {
        self.finalization.verdict
    }
}

impl PlanFolderWriter {
    /// Finalises the plan in `dir`: the verdict over its records, the conformance check,
    /// and `reruns` (gates the caller ran again; none from the command line, which runs no
    /// command). Written whatever the verdict: UNVERIFIED names its reasons.
    pub fn finalize(
        &self,
        dir: &PlanFolder,
        reruns: &[Rerun],
        now: &str,
    ) -> Result<FinalizeReport, DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        let recovered = read_marker(dir)?.map(|marker| {
            format!(
                "An interrupted finalisation (started {}, candidate {}) was found; everything was checked again.",
                marker.started_at,
                &marker.candidate_sha256[..marker.candidate_sha256.len().min(12)]
            )
        });
        let reopened = record_reruns(&mut writer, reruns, now)?;
        let conformance = audit_plan(dir, self.lock, true)?.findings;
        let sha256 = writer.sha256().to_owned();
        let marker = Marker {
            candidate_sha256: sha256.clone(),
            started_at: now.to_owned(),
            pid: std::process::id(),
        };
        write_atomic(&dir.file(FINALIZING_FILE), to_json(&marker).as_bytes())?;
        let planned = read_manifest(dir)?.task_count;
        let state = writer.state();
        let candidate =
            Candidate { state, sha256: &sha256, conformance: &conformance, reruns, planned };
        let finalization = finalize(&candidate, now, &self.author);
        let mut next = state.clone();
        let mut log: Vec<String> = recovered.iter().cloned().collect();
        log.extend(replace_verdict(dir, &mut next, &finalization, now)?);
        let analysis = dir.file(ANALYSIS_DIR);
        check_real_folders(&analysis)?;
        fs::create_dir_all(&analysis).map_err(DwpError::io(&analysis))?;
        let path = analysis.join(FINALIZATION_FILE);
        write_atomic(&path, to_json(&finalization).as_bytes())?;
        log.push(progress_line(&finalization));
        stamp(&mut next, now, &self.author);
        writer.write(Applied { state: next, log }, now)?;
        let marker = dir.file(FINALIZING_FILE);
        fs::remove_file(&marker).map_err(DwpError::io(&marker))?;
        preflight_files::sync_dir(dir.path())?;
        Ok(FinalizeReport { finalization, path, recovered, reopened })
    }

    /// The user accepts the plan's UNVERIFIED verdict as it is (`by`: who, in words): an
    /// explicit choice, recorded in `state.json` and PROGRESS.md. The plan is `completed`
    /// then only when every task is finished; open tasks stay open.
    pub fn accept(&self, dir: &PlanFolder, by: &str, now: &str) -> Result<(), DwpError> {
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        writer.follow_markdown(now)?;
        let mut next = writer.state().clone();
        let open = next.open_task_list();
        let verification = match next.verification.as_mut() {
            None => return Err(Refusal::NothingToAccept { why: "it was not finalised" }.into()),
            Some(v) if v.verdict == Verdict::Verified => {
                return Err(Refusal::NothingToAccept { why: "it is VERIFIED" }.into())
            }
            Some(v) if v.accepted.is_some() => {
                return Err(Refusal::NothingToAccept { why: "it was accepted already" }.into())
            }
            Some(verification) => verification,
        };
        verification.accepted = Some(Acceptance { at: now.to_owned(), by: by.to_owned() });
        let still_open = match open.is_empty() {
            true => String::new(),
            false => format!(" Tasks still open: {open}."),
        };
        let line = format!(
            "{by} accepted the plan as it is, not verified (UNVERIFIED: {}).{still_open}",
            verification.reasons.join("; ")
        );
        stamp(&mut next, now, &self.author);
        writer.write(Applied { state: next, log: vec![line] }, now).map(drop)
    }
}

/// Each gate that was run again filed as a gate record of its task (seed 002: every run of
/// a validation command is one); a failing run withdraws a completed task's completion, and
/// a passing run completes an open task the caller asked to run again (one a failing rerun
/// opened: its check passes now, and a run Preflight made is its evidence). Returns the
/// tasks whose completion was withdrawn.
fn record_reruns(
    writer: &mut Writer<'_>,
    reruns: &[Rerun],
    now: &str,
) -> Result<Vec<u32>, DwpError> {
    let mut reopened = Vec::new();
    for rerun in reruns.iter().filter(|rerun| rerun.ran) {
        let was_completed =
            writer.state().task(rerun.task).is_some_and(|t| t.status == Status::Completed);
        let gates = vec![rerun.run.clone()];
        let passes = rerun.run.clone().into_record(now).is_ok_and(|record| record.passes);
        let change = match (was_completed, passes) {
            (false, true) => {
                Change::Complete { task: rerun.task, gates, outcome: None, commit: None }
            }
            _ => Change::RecordGates { task: rerun.task, gates },
        };
        match writer.apply(&change, now) {
            Ok(_) => {}
            // A run the rules refuse (e.g. its evidence) is attested, not filed.
            Err(DwpError::Refused(_)) => continue,
            Err(error) => return Err(error),
        }
        let open = writer.state().task(rerun.task).is_some_and(|t| t.status != Status::Completed);
        if was_completed && open && !reopened.contains(&rerun.task) {
            reopened.push(rerun.task);
        }
    }
    Ok(reopened)
}

/// `next` gets `finalization` as its verdict; one it had is withdrawn as replaced, its
/// attestation moved to the history. The PROGRESS lines of that.
fn replace_verdict(
    dir: &PlanFolder,
    next: &mut PlanState,
    finalization: &Finalization,
    now: &str,
) -> Result<Vec<String>, DwpError> {
    let mut log = Vec::new();
    if let Some(mut previous) = next.verification.take() {
        let why = format!("replaced by the finalisation of {now}");
        log.push(format!("The {} verdict of {} is {why}.", previous.verdict.as_str(), previous.at));
        previous.withdrawn = Some(why);
        previous.attestation = history_name(next.withdrawn_verifications.len() + 1);
        next.withdrawn_verifications.push(previous);
        super::history::keep_withdrawn_attestation(dir, next)?;
    }
    next.verification = Some(Verification {
        verdict: finalization.verdict,
        at: now.to_owned(),
        reasons: finalization.reasons.clone(),
        attestation: format!("{ANALYSIS_DIR}/{FINALIZATION_FILE}"),
        accepted: None,
        withdrawn: None,
    });
    Ok(log)
}

/// The marker of an interrupted finalisation, when there is one (a regular file, capped).
fn read_marker(dir: &PlanFolder) -> Result<Option<Marker>, DwpError> {
    let read = match read_regular_capped(dir.path(), FINALIZING_FILE.as_ref(), MARKER_CAP) {
        Ok(read) => read,
        Err(error) if error.source.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error.into()),
    };
    // A torn or foreign marker still means an interrupted publication: check again.
    let marker = serde_json::from_slice(&read.bytes).unwrap_or(Marker {
        candidate_sha256: "unknown".to_owned(),
        started_at: "an unknown time".to_owned(),
        pid: 0,
    });
    Ok(Some(marker))
}

fn progress_line(finalization: &Finalization) -> String {
    let file = format!("{ANALYSIS_DIR}/{FINALIZATION_FILE}");
    match finalization.verdict {
        Verdict::Verified => format!("Finalised: VERIFIED; the attestation is {file}."),
        Verdict::Unverified => {
            format!("Finalised: UNVERIFIED ({}); see {file}.", finalization.reasons.join("; "))
        }
    }
}
