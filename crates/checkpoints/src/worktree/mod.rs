//! A chat's own git worktree of the user's repository (DESIGN §18): made on a branch of its
//! own, read as a diff against where it started, merged back, kept as a branch, removed,
//! and made again from its branch when its folder vanished.
//!
//! **Nothing is committed to the user's branches without the user's click:** only `merge`
//! moves one (`merge.rs`), and only after the same checks the preview shows; every other
//! call touches the chat's own branch and worktree alone.
//! **A refusal changes nothing:** conflicts and the user's own changes are found before
//! anything is written (`git merge-tree` writes objects only, never a ref, an index or a
//! file of the checkout).

mod error;
mod guard;
mod merge;
mod place;
mod repo_git;
mod snapshot;

use std::path::{Path, PathBuf};

pub use error::WorktreeError;
pub use merge::{merge, preview, MergePlan, MergePreview, Merged};

use self::place::in_worktree;
use self::repo_git::RepoGit;
use self::snapshot::{commit_work, snapshot};
use crate::diff::Diff;

/// Where a new worktree starts, as `start` found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Started {
    /// The branch checked out in the repository then; `None` when HEAD was detached.
    pub base_branch: Option<String>,
    pub base_commit: String,
}

/// Makes a worktree of `repository` (its top folder) in `folder` (absent or empty) on a new
/// `branch`, from `from` (a commit) or else the repository's HEAD. Hooks do not run.
pub fn start(
    repository: &Path,
    folder: &Path,
    branch: &str,
    from: Option<&str>,
) -> Result<Started, WorktreeError> {
    let git = RepoGit::new(repository, &[folder]);
    check_version(&git)?;
    let top = git.line(&["rev-parse", "--show-toplevel"]).ok();
    let real = |path: &Path| std::fs::canonicalize(path).ok();
    if top.as_deref().and_then(|top| real(Path::new(top))) != real(repository) {
        return Err(WorktreeError::NotARepository(repository.to_owned()));
    }
    let base_commit = match from {
        Some(commit) => git.line(&["rev-parse", "--verify", &format!("{commit}^{{commit}}")])?,
        None => git
            .line(&["rev-parse", "--verify", "HEAD^{commit}"])
            .map_err(|_| WorktreeError::NoCommit(repository.to_owned()))?,
    };
    if git.succeeds(&["show-ref", "--verify", "--quiet", &format!("refs/heads/{branch}")])? {
        return Err(WorktreeError::BranchExists(branch.to_owned()));
    }
    if std::fs::read_dir(folder).is_ok_and(|mut entries| entries.next().is_some()) {
        return Err(WorktreeError::FolderTaken(folder.to_owned()));
    }
    let base_branch = git.line(&["symbolic-ref", "--quiet", "--short", "HEAD"]).ok();
    let parent = folder.parent().unwrap_or(folder);
    std::fs::create_dir_all(parent).map_err(|error| WorktreeError::io(parent, error))?;
    let folder_text = folder.to_string_lossy();
    git.output(&["worktree", "add", "--quiet", "-b", branch, &folder_text, &base_commit])?;
    Ok(Started { base_branch: base_branch.filter(|b| !b.is_empty()), base_commit })
}

/// The chat's work so far, as a diff from `base_commit` to the worktree's files as they are
/// now (its uncommitted changes and new files, `.gitignore` honoured; the sandbox's venv
/// and a plan folder's lock left out), within `max_diff_bytes`.
pub fn diff(
    repository: &Path,
    worktree: &Path,
    base_commit: &str,
    max_diff_bytes: usize,
) -> Result<Diff, WorktreeError> {
    let git = in_worktree(repository, worktree)?;
    let now = snapshot(&git, "the chat's work, not committed")?;
    Ok(git.diff([base_commit, &now], max_diff_bytes)?)
}

/// The worktree's files as they are now, as a commit on top of its HEAD that no ref holds
/// (its index and its branch untouched): what a fork's own worktree starts from.
pub fn snapshot_commit(
    repository: &Path,
    worktree: &Path,
    message: &str,
) -> Result<String, WorktreeError> {
    snapshot(&in_worktree(repository, worktree)?, message)
}

/// Commits the worktree's work on its branch (if there is any not committed yet) with
/// `message`, then removes the worktree folder: the branch is the user's to check out.
/// Returns the branch's commit.
pub fn keep(repository: &Path, worktree: &Path, message: &str) -> Result<String, WorktreeError> {
    let git = in_worktree(repository, worktree)?;
    let commit = commit_work(&git, message)?;
    remove_folder(repository, worktree)?;
    Ok(commit)
}

/// Removes the worktree (a chat deleted). Work not committed yet is committed on its branch
/// first with `message`, so nothing is lost; the branch is then deleted only when
/// `merged_into` (the branch it was merged into) holds all of it, or when it holds nothing
/// beyond `base_commit`. Returns whether the branch stays. A folder already gone is fine.
pub fn remove(
    repository: &Path,
    worktree: &Path,
    removal: &Removal<'_>,
) -> Result<bool, WorktreeError> {
    let repo = RepoGit::new(repository, &[worktree]);
    if worktree.is_dir() {
        let git = in_worktree(repository, worktree)?;
        commit_work(&git, removal.message)?;
        remove_folder(repository, worktree)?;
    } else {
        // Only this worktree's record goes (a prune would forget the user's own worktrees
        // whose folders are away for a moment, an unmounted disk's).
        forget_record(&repo, worktree);
    }
    let branch_ref = format!("refs/heads/{}", removal.branch);
    let Ok(tip) = repo.line(&["rev-parse", "--verify", &format!("{branch_ref}^{{commit}}")]) else {
        return Ok(false);
    };
    let merged = match removal.merged_into {
        Some(base) => {
            repo.succeeds(&["merge-base", "--is-ancestor", &tip, &format!("refs/heads/{base}")])?
        }
        None => false,
    };
    if merged || tip == removal.base_commit {
        repo.output(&["branch", "--quiet", "-D", removal.branch])?;
        return Ok(false);
    }
    Ok(true)
}

/// What `remove` needs to know of the chat's branch.
#[derive(Debug, Clone, Copy)]
pub struct Removal<'a> {
    pub branch: &'a str,
    pub base_commit: &'a str,
    /// The branch a merge took it into, when it was merged.
    pub merged_into: Option<&'a str>,
    pub message: &'a str,
}

/// Makes the worktree folder again from its `branch` (its folder vanished, or the chat was
/// kept as a branch and goes on working).
pub fn recreate(repository: &Path, worktree: &Path, branch: &str) -> Result<(), WorktreeError> {
    let git = RepoGit::new(repository, &[worktree]);
    if worktree.is_dir() && std::fs::read_dir(worktree).is_ok_and(|mut e| e.next().is_some()) {
        return Err(WorktreeError::FolderTaken(worktree.to_owned()));
    }
    forget_record(&git, worktree);
    let parent = worktree.parent().unwrap_or(worktree);
    std::fs::create_dir_all(parent).map_err(|error| WorktreeError::io(parent, error))?;
    git.output(&["worktree", "add", "--quiet", &worktree.to_string_lossy(), branch])?;
    Ok(())
}

/// Drops git's record of the worktree whose folder is gone; none is fine.
fn forget_record(git: &RepoGit, worktree: &Path) {
    let _ = git.output(&["worktree", "remove", "--force", "--force", &worktree.to_string_lossy()]);
}

/// git 2.38 or later: `merge-tree --write-tree` is how a merge is previewed.
fn check_version(git: &RepoGit) -> Result<(), WorktreeError> {
    let said = git.line(&["version"])?;
    let version = said.split_whitespace().nth(2).unwrap_or_default().to_owned();
    let mut parts = version.split('.').map(|part| part.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    match (major, minor) {
        (m, _) if m > 2 => Ok(()),
        (2, n) if n >= 38 => Ok(()),
        _ => Err(WorktreeError::GitTooOld(version)),
    }
}

/// `git worktree remove --force` (its ignored files, the venv among them, go too), then the
/// folders Preflight made for it when they are empty.
fn remove_folder(repository: &Path, worktree: &Path) -> Result<(), WorktreeError> {
    let git = RepoGit::new(repository, &[worktree]);
    git.output(&["worktree", "remove", "--force", "--force", &worktree.to_string_lossy()])?;
    if let Some(parent) = worktree.parent() {
        let _ = std::fs::remove_dir(parent);
    }
    Ok(())
}

/// The worktree folder of chat `chat` in the data folder `home`, named after `repository`.
pub fn folder_of(home: &Path, chat: &str, repository: &Path) -> PathBuf {
    let name = repository.file_name().map(|n| n.to_string_lossy().into_owned());
    home.join("worktrees").join(chat).join(name.unwrap_or_else(|| "work".into()))
}
