//! What can go wrong with a checkpoint, in the variants a caller branches on.

use std::io;
use std::path::PathBuf;
use std::time::Duration;

/// A checkpoint could not be taken, read or restored.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    /// The commit string is not a checkpoint of this repository: not 40 hexadecimal digits,
    /// or no such commit (never taken, or forgotten and pruned).
    #[error("no checkpoint {commit:?} in the shadow repository")]
    NotFound { commit: String },
    /// The `git` program is not on the PATH.
    #[error("git is not installed (or not on the PATH): checkpoints need it")]
    GitMissing,
    /// A git call ran past the operation's time budget and was killed with its children.
    #[error("`{command}` ran past the checkpoint's time budget of {budget:?} and was stopped")]
    TimedOut { command: String, budget: Duration },
    /// A file or folder could not be read or written.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// A git call failed; `stderr` is what it said.
    #[error("`{command}` failed: {stderr}")]
    Git { command: String, stderr: String },
    /// A restore would write or delete through a symbolic link or outside the work tree;
    /// nothing was changed.
    #[error("refused to restore {path:?}: {why}")]
    Refused { path: String, why: &'static str },
    /// The checkpoint was taken of another folder than this repository's work tree (the
    /// chat's workspace moved): it is restored or compared only there; nothing was changed.
    #[error(
        "checkpoint {commit} was taken of the folder {}, not of this workspace {}: it can be \
         restored or compared only there",
        folder.display(),
        work_tree.display()
    )]
    OtherFolder { commit: String, folder: PathBuf, work_tree: PathBuf },
    /// The restore's plan is no longer the one the caller previewed (the workspace or the
    /// latest checkpoint changed since): nothing was changed; preview it again.
    #[error("the workspace changed since the restore was previewed: nothing was restored; look at what it would do again")]
    PlanChanged,
}

impl CheckpointError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> CheckpointError {
        CheckpointError::Io { path: path.into(), source }
    }
}

impl From<preflight_files::FileError> for CheckpointError {
    fn from(error: preflight_files::FileError) -> CheckpointError {
        CheckpointError::Io { path: error.path, source: error.source }
    }
}
