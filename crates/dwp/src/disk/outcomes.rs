//! Reads the outcome records of a workspace's finished plans (`rules::outcomes` makes the
//! text). A workspace is untrusted: each `state.json` is read as every plan document is
//! (no link followed, size-capped, structurally checked), and a folder that cannot be read
//! is skipped, never an error: the records are a help to the planner, not a requirement.
//!
//! What one read may cost is bounded in total (issue 46: 200 planted plans made every
//! planner turn read 800 MiB): the folders are listed without opening a file and taken
//! newest first by their own modification time; at most [`MAX_FOLDERS`] of them have their
//! `state.json` read, a file larger than [`MAX_STATE_BYTES`] is skipped unread, and reading
//! stops once [`MAX_TOTAL_BYTES`] were read.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::disk::folder::{
    check_real_folders, parse_state, read_document_within, PLANS_DIR, STATE_FILE,
};
use crate::rules::outcomes::{outcome_text, FinishedPlan};

/// Entries of `.dwp/plans` listed at most (names and metadata only).
pub const MAX_LISTED: usize = 10_000;
/// Plan folders whose `state.json` is read, at most: the newest.
pub const MAX_FOLDERS: usize = 32;
/// A `state.json` over this many bytes is skipped unread (a finished plan's is a few KiB).
pub const MAX_STATE_BYTES: u64 = 256 << 10;
/// Bytes read in all, at most: once spent, no further file is opened.
pub const MAX_TOTAL_BYTES: u64 = 1 << 20;

/// The records, and what reading them cost.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OutcomeRecords {
    /// The records as the planner reads them (see [`outcome_text`]); empty when none.
    pub text: String,
    /// Plan folders whose `state.json` was opened.
    pub folders_read: usize,
    /// Bytes read from those files in all.
    pub bytes_read: u64,
}

/// The outcome records of the completed plans under `workspace/.dwp/plans`, newest first,
/// at most `max_bytes` bytes of text; empty when there are none.
pub fn finished_outcomes(workspace: &Path, max_bytes: usize) -> OutcomeRecords {
    let plans_dir = workspace.join(PLANS_DIR);
    let mut records = OutcomeRecords::default();
    if check_real_folders(&plans_dir).is_err() {
        return records;
    }
    let mut plans = Vec::new();
    for folder in newest_folders(&plans_dir) {
        let left = MAX_TOTAL_BYTES.saturating_sub(records.bytes_read);
        if records.folders_read >= MAX_FOLDERS || left == 0 {
            break;
        }
        plans.extend(read_plan(&folder, left.min(MAX_STATE_BYTES), &mut records));
    }
    records.text = outcome_text(plans, max_bytes);
    records
}

/// The real folders under `plans_dir`, newest first by their modification time, from the
/// listing alone: links and anything but a folder are skipped, no file is opened.
fn newest_folders(plans_dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(plans_dir) else { return Vec::new() };
    let mut folders: Vec<(SystemTime, PathBuf)> = entries
        .take(MAX_LISTED)
        .flatten()
        .filter_map(|entry| {
            // A directory entry's metadata is the entry's own: a link is not followed.
            let metadata = entry.metadata().ok().filter(fs::Metadata::is_dir)?;
            Some((metadata.modified().unwrap_or(UNIX_EPOCH), entry.path()))
        })
        .collect();
    folders.sort_by_key(|(modified, _)| std::cmp::Reverse(*modified));
    folders.into_iter().map(|(_, path)| path).collect()
}

/// One folder's finished plan, reading at most `cap` bytes (counted into `records`); `None`
/// when its `state.json` is missing, a link, not a regular file, over `cap` or malformed.
fn read_plan(folder: &Path, cap: u64, records: &mut OutcomeRecords) -> Option<FinishedPlan> {
    let path = folder.join(STATE_FILE);
    let metadata = fs::symlink_metadata(&path).ok().filter(fs::Metadata::is_file)?;
    if metadata.len() > cap {
        return None;
    }
    records.folders_read += 1;
    let bytes = read_document_within(&path, cap);
    // A file that grew past the cap since its size was looked at was read up to one byte over.
    records.bytes_read += bytes.as_ref().map_or(cap + 1, |bytes| bytes.len() as u64);
    let state = parse_state(&path, &bytes.ok()?).ok()?.document;
    let name = folder.file_name()?.to_string_lossy().into_owned();
    Some(FinishedPlan { folder: name, state })
}
