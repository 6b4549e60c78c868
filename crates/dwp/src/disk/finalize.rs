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
use super::folder::{check_real_folders, to_json, PlanFolder, FINALIZING_FILE};
use super::writer::Writer;
use crate::disk::plan_files::PlanFolderWriter;
use crate::rules::finalization::{finalize, Candidate, Finalization, Rerun, Verdict};
use crate::rules::transition::Applied;

/// Where the attestation goes, inside the plan's own folder (never the repository's root).
pub(crate) const ANALYSIS_DIR: &str = "analysis_results";
pub(crate) const FINALIZATION_FILE: &str = "FINALIZATION.json";
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
        let conformance = audit_plan(dir, self.lock, true)?.findings;
        let sha256 = writer.sha256().to_owned();
        let marker = Marker {
            candidate_sha256: sha256.clone(),
            started_at: now.to_owned(),
            pid: std::process::id(),
        };
        write_atomic(&dir.file(FINALIZING_FILE), to_json(&marker).as_bytes())?;
        let candidate =
            Candidate { state: writer.state(), sha256: &sha256, conformance: &conformance, reruns };
        let finalization = finalize(&candidate, now, &self.author);
        let analysis = dir.file(ANALYSIS_DIR);
        check_real_folders(&analysis)?;
        fs::create_dir_all(&analysis).map_err(DwpError::io(&analysis))?;
        let path = analysis.join(FINALIZATION_FILE);
        write_atomic(&path, to_json(&finalization).as_bytes())?;
        let mut log: Vec<String> = recovered.iter().cloned().collect();
        log.push(progress_line(&finalization));
        let applied = Applied { state: writer.state().clone(), log };
        writer.write(applied, now)?;
        let marker = dir.file(FINALIZING_FILE);
        fs::remove_file(&marker).map_err(DwpError::io(&marker))?;
        preflight_files::sync_dir(dir.path())?;
        Ok(FinalizeReport { finalization, path, recovered })
    }
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
