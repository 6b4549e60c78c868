//! Why a plan folder could not be read, checked or written: `DwpError`, which also carries
//! a rule's [`Refusal`]. Messages say what to do next.

use std::path::PathBuf;

use preflight_files::FileError;
use thiserror::Error;

use crate::rules::refusal::Refusal;
use crate::rules::tracker::ListReplaced;

/// Anything that went wrong reading, checking or writing a plan folder.
#[derive(Debug, Error)]
pub enum DwpError {
    #[error("{}: {source}", .path.display())]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{} is not valid: {}", .path.display(), .problems.join("; "))]
    Malformed { path: PathBuf, problems: Vec<String> },
    /// A schema URL that is neither v2 nor v1 (a v1 document is read as its migration and
    /// migrated on disk at the folder's first write, its files kept beside; `disk/migration.rs`).
    #[error("{} has schema {schema:?}; this tool reads {expected} and its v1 predecessor (migrated to v2 at the first write, the v1 files kept beside), nothing else", .path.display())]
    UnsupportedSchema { path: PathBuf, schema: String, expected: &'static str },
    #[error("the plan was written under DWP {found}, newer than the {ours} this tool knows; refusing to guess")]
    NewerSpec { found: String, ours: &'static str },
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("state.json changed since it was read: sha256 {actual}, expected {expected}")]
    StateChanged { expected: String, actual: String },
    #[error("{} is held by {owner} and was not released in time", .path.display())]
    LockBusy { path: PathBuf, owner: String },
    #[error("{} looks stale ({why}; owner: {owner}); check that no writer is running, then remove it or pass --break-stale-lock", .path.display())]
    LockStale { path: PathBuf, owner: String, why: String },
    #[error("{} is held by a writer that may still be running ({owner}); not breaking it", .path.display())]
    LockNotStale { path: PathBuf, owner: String },
    #[error("README.md and state.json disagree (Markdown wins): {}; reconcile first", .findings.join("; "))]
    OutOfSync { findings: Vec<String> },
    #[error("{}: no `dwp:tasks` markers around the task list; the updater rewrites only that block", .path.display())]
    ReadmeMarkersMissing { path: PathBuf },
    #[error("the plan {status}; only an approved plan is materialised")]
    NotApproved { status: &'static str },
    #[error("the task list no longer matches the plan files ({detail}); the files keep the approved plan")]
    TaskListReplaced { detail: String },
    #[error("{}: not a plan folder (no state.json)", .path.display())]
    NotAPlan { path: PathBuf },
    /// A plan folder or document that is not what Preflight writes there: a symbolic link
    /// (it could point out of the workspace), a device or FIFO, a file past the size cap.
    #[error("{}: {why}; plan folders and their files are never followed through links or read whole when oversize", .path.display())]
    Unsafe { path: PathBuf, why: String },
}

impl From<FileError> for DwpError {
    fn from(error: FileError) -> DwpError {
        DwpError::Io { path: error.path, source: error.source }
    }
}

impl From<ListReplaced> for DwpError {
    fn from(replaced: ListReplaced) -> DwpError {
        DwpError::TaskListReplaced { detail: replaced.detail }
    }
}

impl DwpError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> DwpError {
        let path = path.into();
        move |source| DwpError::Io { path, source }
    }
}
