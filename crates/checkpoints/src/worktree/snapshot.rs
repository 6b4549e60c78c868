//! The worktree's work as a commit: `snapshot` makes one without touching the worktree's
//! index or any ref (for a diff or a merge's preview); `commit_work` commits it on the
//! chat's branch for real (Merge, Keep as branch, a chat deleted).
//!
//! What counts as the work: every file git would add (`.gitignore` honoured), less the code
//! sandbox's `.sandbox/` (its venv) and a plan folder's `.lock` entries while one is written.

use super::error::WorktreeError;
use super::repo_git::RepoGit;

/// `git add` of all the work, then Preflight's own transient folders taken out of the index
/// again (an exclude pathspec would fail on a `.sandbox/` the `.gitignore` names).
const WORK: &[&str] = &["add", "--all", "--", "."];
const NOT_WORK: &[&str] = &[
    "rm",
    "-r",
    "--cached",
    "--quiet",
    "--ignore-unmatch",
    "--",
    ":(glob).sandbox/**",
    ":(glob)**/.lock*/**",
];

/// The worktree as it is now, as a commit whose parent is its HEAD (HEAD itself when
/// nothing changed since). Neither the worktree's index nor a ref changes.
pub(super) fn snapshot(git: &RepoGit, message: &str) -> Result<String, WorktreeError> {
    let git_dir = git.line(&["rev-parse", "--absolute-git-dir"])?;
    // Its own name per call: two snapshots never share a scratch index.
    static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = format!("preflight-scratch-index-{}-{call}", std::process::id());
    let scratch = std::path::Path::new(&git_dir).join(name);
    // From the real index, so that unchanged files are known by their stat data.
    let real_index = std::path::Path::new(&git_dir).join("index");
    if let Err(error) = std::fs::copy(&real_index, &scratch) {
        if error.kind() != std::io::ErrorKind::NotFound {
            return Err(WorktreeError::io(real_index, error));
        }
    }
    let scratch_git = git.with_index(scratch.clone());
    let made = (|| {
        // `-m` keeps the stat data copied from the real index: unchanged files are not hashed.
        scratch_git.output(&["read-tree", "-m", "HEAD"]).map(|_| ())?;
        scratch_git.output(WORK)?;
        scratch_git.output(NOT_WORK)?;
        commit_of(&scratch_git, git, message)
    })();
    let _ = std::fs::remove_file(&scratch);
    made
}

/// Commits the worktree's work on its branch when there is any; returns the branch's tip.
pub(super) fn commit_work(git: &RepoGit, message: &str) -> Result<String, WorktreeError> {
    git.output(WORK)?;
    git.output(NOT_WORK)?;
    if !git.succeeds(&["diff", "--cached", "--quiet"])? {
        let identity = git.identity();
        let identity: Vec<(&str, String)> = identity.into_iter().collect();
        git.output_with(
            &["commit", "--quiet", "--no-verify", "--allow-empty-message", "-m", message],
            &identity,
        )?;
    }
    Ok(git.line(&["rev-parse", "--verify", "HEAD^{commit}"])?)
}

/// The commit of `indexed`'s index on top of HEAD (HEAD when the tree is the same).
fn commit_of(indexed: &RepoGit, git: &RepoGit, message: &str) -> Result<String, WorktreeError> {
    let tree = indexed.line(&["write-tree"])?;
    let head = git.line(&["rev-parse", "--verify", "HEAD^{commit}"])?;
    if git.line(&["rev-parse", "HEAD^{tree}"])? == tree {
        return Ok(head);
    }
    let identity = git.identity();
    Ok(String::from_utf8_lossy(
        &git.output_with(&["commit-tree", &tree, "-p", &head, "-m", message], &identity)?,
    )
    .trim()
    .to_owned())
}
