//! What can go wrong with a chat's worktree, in words that say what to do.

use std::path::PathBuf;

use crate::CheckpointError;

/// A worktree could not be made, read, merged, kept or removed. Each refusal changed
/// nothing in the user's repository.
#[derive(Debug, thiserror::Error)]
pub enum WorktreeError {
    #[error("{} is not the top folder of a git repository: a chat gets its own worktree only of one", .0.display())]
    NotARepository(PathBuf),
    #[error("the repository {} has no commit yet: commit once, then a chat can branch from it", .0.display())]
    NoCommit(PathBuf),
    #[error("the branch {0} exists already in the repository: delete or rename it first")]
    BranchExists(String),
    #[error("the chat started from a detached HEAD, so there is no branch to merge into: keep it as a branch instead")]
    Detached,
    #[error("the branch {0} it came from no longer exists: keep the work as a branch instead")]
    BaseGone(String),
    #[error("nothing to merge: {branch} holds nothing that {base} does not")]
    NothingToMerge { branch: String, base: String },
    #[error("merging into {base} would conflict in {}: nothing was changed; resolve it in your own git (the work is on {branch}) or keep it as a branch", .files.join(", "))]
    Conflicts { base: String, branch: String, files: Vec<String> },
    #[error("your checkout of {base} has changes of its own to {}: commit or stash them, then merge; nothing was changed", .files.join(", "))]
    CheckoutChanged { base: String, files: Vec<String> },
    #[error("{0}")]
    BaseBusy(String),
    #[error("the chat's work or its branch changed since the preview: nothing was merged; look at what the merge would do again")]
    PreviewChanged,
    #[error("git {0} is too old for a chat's own worktree: it needs git 2.38 or later (`git merge-tree --write-tree`); update git")]
    GitTooOld(String),
    #[error("the worktree folder {} is gone: recreate it from its branch {branch}", .path.display())]
    Missing { path: PathBuf, branch: String },
    #[error("the worktree folder {} exists already and is not empty", .0.display())]
    FolderTaken(PathBuf),
    #[error(transparent)]
    Git(#[from] CheckpointError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl WorktreeError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> WorktreeError {
        WorktreeError::Io { path: path.into(), source }
    }
}
