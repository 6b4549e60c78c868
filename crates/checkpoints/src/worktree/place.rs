//! Where git runs for a chat's worktree: in its folder, when the folder is there.

use std::path::Path;

use super::error::WorktreeError;
use super::repo_git::RepoGit;

/// git in the worktree, when its folder is there.
pub(super) fn in_worktree(repository: &Path, worktree: &Path) -> Result<RepoGit, WorktreeError> {
    if !worktree.join(".git").exists() {
        let branch = RepoGit::new(repository, &[worktree])
            .line(&["worktree", "list", "--porcelain"])
            .ok()
            .and_then(|list| branch_of(&list, worktree))
            .unwrap_or_default();
        return Err(WorktreeError::Missing { path: worktree.to_owned(), branch });
    }
    Ok(RepoGit::new(worktree, &[repository]))
}

/// The branch `git worktree list --porcelain` names for `worktree`.
fn branch_of(list: &str, worktree: &Path) -> Option<String> {
    let wanted = format!("worktree {}", worktree.display());
    let block = list.split("\n\n").find(|block| block.lines().next() == Some(wanted.as_str()))?;
    let branch = block.lines().find_map(|line| line.strip_prefix("branch refs/heads/"))?;
    Some(branch.to_owned())
}
