//! What else of the user's holds the branch a merge would move: another worktree of theirs
//! with it checked out, a rebase of it under way, or files of their checkout that git ignores
//! and a fast-forward would overwrite without a word.

use std::collections::BTreeSet;
use std::path::Path;

use super::error::WorktreeError;
use super::repo_git::RepoGit;

/// Why `base` cannot be moved now, or `None`: checked out in another worktree than the
/// repository's own checkout (moving it would leave that worktree's files behind its
/// branch), or being rebased in any worktree (the rebase would then fail to finish).
pub(super) fn base_busy(
    repo: &RepoGit,
    repository: &Path,
    base: &str,
) -> Result<Option<String>, WorktreeError> {
    let branch_ref = format!("refs/heads/{base}");
    let at = repo.line(&["for-each-ref", "--format=%(worktreepath)", &branch_ref])?;
    let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
    if !at.is_empty() && real(Path::new(&at)) != real(repository) {
        return Ok(Some(format!("{base} is checked out in another worktree of yours, at {at}: merge there yourself, or keep this work as a branch")));
    }
    let common = repo.line(&["rev-parse", "--path-format=absolute", "--git-common-dir"])?;
    let common = Path::new(&common);
    let mut admin = vec![common.to_owned()];
    if let Ok(entries) = std::fs::read_dir(common.join("worktrees")) {
        admin.extend(entries.flatten().map(|entry| entry.path()));
    }
    for dir in admin {
        for state in ["rebase-merge", "rebase-apply"] {
            let head =
                std::fs::read_to_string(dir.join(state).join("head-name")).unwrap_or_default();
            if head.trim() == branch_ref {
                return Ok(Some(format!(
                    "a rebase of {base} is under way: finish or abort it, then merge"
                )));
            }
        }
    }
    Ok(None)
}

/// Among `touched`, the files of the user's checkout that git ignores but that exist: a
/// fast-forward would overwrite them (a `.env` the chat's branch adds) without a word.
pub(super) fn ignored_touched(
    repo: &RepoGit,
    touched: &BTreeSet<&str>,
) -> Result<Vec<String>, WorktreeError> {
    let out = repo.output(&["ls-files", "--others", "--ignored", "--exclude-standard", "-z"])?;
    let ignored = out.split(|b| *b == 0).filter(|path| !path.is_empty());
    let ignored = ignored.map(|path| String::from_utf8_lossy(path).into_owned());
    Ok(ignored.filter(|path| touched.contains(path.as_str())).collect())
}
