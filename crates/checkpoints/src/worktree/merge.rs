//! Merge: what merging the chat's branch into the branch it came from would change
//! (`preview`), and doing it (`merge`), as a merge commit or one squashed commit.
//!
//! Both compute the merged tree with `git merge-tree --write-tree`, which writes objects
//! only: conflicts are found without touching a ref, an index or a file. `merge` then
//! commits the chat's work on its branch, makes the merge's commit and moves the base
//! branch to it: by a fast-forward of the user's checkout when that branch is checked out
//! (git refuses if a file it would write changed meanwhile: nothing changes), else by a
//! compare-and-swap of the ref.

use std::collections::BTreeSet;
use std::path::Path;

use super::error::WorktreeError;
use super::guard::{base_busy, ignored_touched};
use super::place::in_worktree;
use super::repo_git::RepoGit;
use super::snapshot::{commit_work, snapshot};
use crate::diff::Diff;

/// What to merge, where from, where into.
#[derive(Debug, Clone, Copy)]
pub struct MergePlan<'a> {
    pub repository: &'a Path,
    pub worktree: &'a Path,
    pub branch: &'a str,
    pub base_branch: Option<&'a str>,
    pub squash: bool,
    /// The commit message (the plan's title and its completion).
    pub message: &'a str,
    pub max_diff_bytes: usize,
    /// The `digest` of the preview the user saw: the merge is refused when what it would
    /// merge is another by now (`PreviewChanged`). None: no preview was shown.
    pub expect: Option<&'a str>,
}

/// What a merge would do, found without changing anything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergePreview {
    pub base: String,
    /// What the merge would change in the base branch.
    pub diff: Diff,
    /// Files both sides changed differently: the merge is refused.
    pub conflicts: Vec<String>,
    /// Files the merge would write that the user changed in their checkout of the base
    /// branch and did not commit: the merge is refused.
    pub checkout_changed: Vec<String>,
    /// The base branch holds all of the chat's work already.
    pub nothing_to_merge: bool,
    /// What the preview is of: the work's tree and the base branch's tip.
    pub digest: String,
}

impl MergePreview {
    /// Whether `merge` would go ahead.
    pub fn can_merge(&self) -> bool {
        self.conflicts.is_empty() && self.checkout_changed.is_empty() && !self.nothing_to_merge
    }
}

/// A merge done.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Merged {
    /// The new commit on the base branch.
    pub commit: String,
    /// The chat's branch's tip that was merged.
    pub tip: String,
}

/// What merging would do; changes no ref, index or file.
pub fn preview(plan: &MergePlan<'_>) -> Result<MergePreview, WorktreeError> {
    let (repo, base, target) = base_of(plan)?;
    let tip = snapshot(&in_worktree(plan.repository, plan.worktree)?, plan.message)?;
    preview_of(plan, &repo, &base, [&target, &tip])
}

/// Merges the chat's branch into its base branch, or refuses with what the preview says.
pub fn merge(plan: &MergePlan<'_>) -> Result<Merged, WorktreeError> {
    let (repo, base, target) = base_of(plan)?;
    let work = in_worktree(plan.repository, plan.worktree)?;
    let seen = preview_of(plan, &repo, &base, [&target, &snapshot(&work, plan.message)?])?;
    if plan.expect.is_some_and(|expected| expected != seen.digest) {
        return Err(WorktreeError::PreviewChanged);
    }
    refuse_unless_clean(plan, &base, &seen)?;
    let tip = commit_work(&work, plan.message)?;
    let (tree, conflicts) = merge_tree(&repo, &target, &tip)?;
    if !conflicts.is_empty() {
        let (base, branch) = (base.clone(), plan.branch.to_owned());
        return Err(WorktreeError::Conflicts { base, branch, files: conflicts });
    }
    let mut args = vec!["commit-tree", tree.as_str(), "-p", target.as_str()];
    if !plan.squash {
        args.extend(["-p", tip.as_str()]);
    }
    args.extend(["-m", plan.message]);
    let identity = repo.identity();
    let commit = String::from_utf8_lossy(&repo.output_with(&args, &identity)?).trim().to_owned();
    if checked_out(&repo, &base) {
        repo.output(&["merge", "--ff-only", "--quiet", "--no-verify", &commit])?;
    } else {
        let branch_ref = format!("refs/heads/{base}");
        repo.output(&["update-ref", "-m", "preflight: merge", &branch_ref, &commit, &target])?;
    }
    Ok(Merged { commit, tip })
}

fn refuse_unless_clean(
    plan: &MergePlan<'_>,
    base: &str,
    seen: &MergePreview,
) -> Result<(), WorktreeError> {
    let base = base.to_owned();
    if seen.nothing_to_merge {
        return Err(WorktreeError::NothingToMerge { branch: plan.branch.to_owned(), base });
    }
    if !seen.conflicts.is_empty() {
        let (branch, files) = (plan.branch.to_owned(), seen.conflicts.clone());
        return Err(WorktreeError::Conflicts { base, branch, files });
    }
    if !seen.checkout_changed.is_empty() {
        return Err(WorktreeError::CheckoutChanged { base, files: seen.checkout_changed.clone() });
    }
    Ok(())
}

/// git on the repository, the base branch's name and its tip.
fn base_of(plan: &MergePlan<'_>) -> Result<(RepoGit, String, String), WorktreeError> {
    let base = plan.base_branch.ok_or(WorktreeError::Detached)?.to_owned();
    let repo = RepoGit::new(plan.repository, &[plan.worktree]);
    let target = repo
        .line(&["rev-parse", "--verify", "--quiet", &format!("refs/heads/{base}^{{commit}}")])
        .map_err(|_| WorktreeError::BaseGone(base.clone()))?;
    Ok((repo, base, target))
}

fn preview_of(
    plan: &MergePlan<'_>,
    repo: &RepoGit,
    base: &str,
    [target, tip]: [&str; 2],
) -> Result<MergePreview, WorktreeError> {
    if let Some(why) = base_busy(repo, plan.repository, base)? {
        return Err(WorktreeError::BaseBusy(why));
    }
    let (tree, conflicts) = merge_tree(repo, target, tip)?;
    // Nothing to merge: the work is in the base already, or (after a squash) the merge
    // would change nothing.
    let nothing_to_merge = repo.succeeds(&["merge-base", "--is-ancestor", tip, target])?
        || (conflicts.is_empty()
            && repo.line(&["rev-parse", &format!("{target}^{{tree}}")])? == tree);
    let digest = format!("{}:{target}", repo.line(&["rev-parse", &format!("{tip}^{{tree}}")])?);
    let diff = repo.diff([target, &tree], plan.max_diff_bytes)?;
    let checkout_changed = if checked_out(repo, base) {
        let touched: BTreeSet<&str> = diff
            .files
            .iter()
            .flat_map(|file| std::iter::once(file.path.as_str()).chain(file.old_path.as_deref()))
            .chain(conflicts.iter().map(String::as_str))
            .collect();
        let mut changed: Vec<String> = changed_in_checkout(repo)?
            .into_iter()
            .filter(|path| touched.contains(path.as_str()))
            .collect();
        changed.extend(ignored_touched(repo, &touched)?);
        changed
    } else {
        Vec::new()
    };
    let base = base.to_owned();
    Ok(MergePreview { base, diff, conflicts, checkout_changed, nothing_to_merge, digest })
}

/// The merged tree of `target` and `tip`, and the files that conflict (none: it is clean).
fn merge_tree(
    repo: &RepoGit,
    target: &str,
    tip: &str,
) -> Result<(String, Vec<String>), WorktreeError> {
    let args = ["merge-tree", "--write-tree", "--no-messages", "--name-only", "-z", target, tip];
    let (out, done) = repo.output_even_failing(&args);
    let mut fields =
        out.split(|b| *b == 0).map(|field| String::from_utf8_lossy(field).into_owned());
    let tree = fields.next().unwrap_or_default();
    let is_oid = tree.len() >= 40 && tree.bytes().all(|b| b.is_ascii_hexdigit());
    match done {
        Ok(()) => Ok((tree, Vec::new())),
        // Exit 1 with a tree first: the merge conflicts in the files listed after it.
        Err(_) if is_oid => {
            let files: BTreeSet<String> = fields.filter(|file| !file.is_empty()).collect();
            Ok((tree, files.into_iter().collect()))
        }
        Err(error) => Err(error.into()),
    }
}

/// Whether the user's checkout has `base` checked out.
fn checked_out(repo: &RepoGit, base: &str) -> bool {
    repo.line(&["symbolic-ref", "--quiet", "HEAD"])
        .is_ok_and(|head| head == format!("refs/heads/{base}"))
}

/// The paths the user changed in their checkout and did not commit (staged, unstaged or new).
fn changed_in_checkout(repo: &RepoGit) -> Result<Vec<String>, WorktreeError> {
    let out = repo.output(&["status", "--porcelain=v1", "-z", "--untracked-files=all"])?;
    let mut paths = Vec::new();
    let mut entries = out.split(|b| *b == 0).filter(|entry| !entry.is_empty());
    while let Some(entry) = entries.next() {
        if entry.len() < 4 {
            continue;
        }
        paths.push(String::from_utf8_lossy(&entry[3..]).into_owned());
        // A rename's (or copy's) entry, in either column, is followed by its source.
        if matches!(entry[0], b'R' | b'C') || matches!(entry[1], b'R' | b'C') {
            if let Some(from) = entries.next() {
                paths.push(String::from_utf8_lossy(from).into_owned());
            }
        }
    }
    Ok(paths)
}
