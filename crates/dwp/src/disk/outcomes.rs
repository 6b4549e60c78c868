//! Reads the outcome records of a workspace's finished plans (`rules::outcomes` makes the
//! text). A workspace is untrusted: each `state.json` is read as every plan document is
//! (no link followed, size-capped, structurally checked), and a folder that cannot be read
//! is skipped, never an error: the records are a help to the planner, not a requirement.

use std::fs;
use std::path::Path;

use crate::disk::folder::{check_real_folders, read_state, PlanFolder, PLANS_DIR};
use crate::rules::outcomes::{outcome_text, FinishedPlan};

/// Folders under `.dwp/plans` looked at, at most: a planted folder of thousands of plans
/// costs the planner's turn no more than this many reads.
const MAX_FOLDERS: usize = 200;

/// The outcome records of the completed plans under `workspace/.dwp/plans`, newest first,
/// at most `max_bytes` bytes; empty when there are none.
pub fn finished_outcomes(workspace: &Path, max_bytes: usize) -> String {
    let plans_dir = workspace.join(PLANS_DIR);
    if check_real_folders(&plans_dir).is_err() {
        return String::new();
    }
    let Ok(entries) = fs::read_dir(&plans_dir) else { return String::new() };
    let plans = entries
        .flatten()
        .take(MAX_FOLDERS)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| {
            let folder = PlanFolder::open(entry.path()).ok()?;
            let state = read_state(&folder).ok()?.state;
            Some(FinishedPlan { folder: folder.name(), state })
        })
        .collect();
    outcome_text(plans, max_bytes)
}
