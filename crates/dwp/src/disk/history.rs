//! A verdict withdrawn from a plan folder keeps its attestation as history: after a write
//! that left the plan without a verdict, `analysis_results/FINALIZATION.json` moves to
//! `analysis_results/history/FINALIZATION-N.json`, the name `state.json`'s withdrawn verdict
//! gives (computed from the count, never read from the files).

use std::fs;

use super::error::DwpError;
use super::folder::{check_real_folders, PlanFolder, ANALYSIS_DIR, FINALIZATION_FILE};
use crate::rules::documents::PlanState;
use crate::rules::restore::{history_name, HISTORY_DIR};

/// After a write that left the plan without a verdict: the attestation of the verdict
/// withdrawn last, if still in place, moves to its place in the history. The name is the
/// writer's own (from the count), never a path read from the files.
pub(crate) fn keep_withdrawn_attestation(
    dir: &PlanFolder,
    state: &PlanState,
) -> Result<(), DwpError> {
    let withdrawn = state.withdrawn_verifications.len();
    let current = dir.file(ANALYSIS_DIR).join(FINALIZATION_FILE);
    let present = fs::symlink_metadata(&current).is_ok_and(|meta| meta.is_file());
    if state.verification.is_some() || withdrawn == 0 || !present {
        return Ok(());
    }
    let history = dir.file(ANALYSIS_DIR).join(HISTORY_DIR);
    check_real_folders(&history)?;
    fs::create_dir_all(&history).map_err(DwpError::io(&history))?;
    let kept = dir.path().join(history_name(withdrawn));
    fs::rename(&current, &kept).map_err(DwpError::io(&kept))?;
    preflight_files::sync_dir(&history)?;
    preflight_files::sync_dir(&dir.file(ANALYSIS_DIR)).map_err(Into::into)
}
