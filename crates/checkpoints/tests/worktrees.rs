//! A chat's own worktree on a real repository (DESIGN §18): started on its branch, read as a
//! diff, merged (a merge commit, or squashed) into the branch it came from, refused with
//! nothing changed on a conflict or on the user's own changes, kept as a branch, removed
//! without losing work, and made again from its branch.

use std::path::{Path, PathBuf};
use std::process::Command;

use preflight_checkpoints::worktree::{self, MergePlan, Removal, WorktreeError};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=User", "-c", "user.email=user@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A repository on `main` with two files committed, and a data folder beside it.
fn repository() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let repo = root.path().join("shop");
    std::fs::create_dir(&repo).unwrap();
    git(&repo, &["init", "--quiet", "--initial-branch=main"]);
    std::fs::write(repo.join("prices.txt"), "apple 1\npear 2\n").unwrap();
    std::fs::write(repo.join("README.md"), "# Shop\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n").unwrap();
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "start"]);
    let home = root.path().join("data");
    (root, repo, home)
}

fn plan<'a>(repo: &'a Path, worktree: &'a Path, branch: &'a str, squash: bool) -> MergePlan<'a> {
    MergePlan {
        repository: repo,
        worktree,
        branch,
        base_branch: Some("main"),
        squash,
        message: "Raise the prices\n\nDone: prices raised.",
        max_diff_bytes: 1 << 20,
        expect: None,
    }
}

#[test]
fn two_worktrees_work_apart_the_first_merges_and_the_second_conflicts_without_changing_anything() {
    let (_root, repo, home) = repository();
    let (one, two) =
        (worktree::folder_of(&home, "c1", &repo), worktree::folder_of(&home, "c2", &repo));
    let started = worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    assert_eq!(started.base_branch.as_deref(), Some("main"));
    worktree::start(&repo, &two, "preflight/c2", None).unwrap();
    std::fs::write(one.join("prices.txt"), "apple 3\npear 2\n").unwrap();
    std::fs::write(one.join("new.txt"), "new\n").unwrap();
    std::fs::create_dir_all(one.join(".sandbox/venv")).unwrap();
    std::fs::write(one.join(".sandbox/venv/python"), "venv").unwrap();
    std::fs::write(two.join("prices.txt"), "apple 9\npear 2\n").unwrap();
    assert_eq!(std::fs::read_to_string(repo.join("prices.txt")).unwrap(), "apple 1\npear 2\n");
    assert_eq!(std::fs::read_to_string(two.join("prices.txt")).unwrap(), "apple 9\npear 2\n");

    let diff = worktree::diff(&repo, &one, &started.base_commit, 1 << 20).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["new.txt", "prices.txt"], "the venv is no part of the work");
    assert!(git(&one, &["diff", "--cached", "--name-only"]).is_empty(), "its index untouched");

    let head_before = git(&repo, &["rev-parse", "main"]);
    let preview = worktree::preview(&plan(&repo, &one, "preflight/c1", false)).unwrap();
    assert!(preview.can_merge(), "{preview:?}");
    assert_eq!(git(&repo, &["rev-parse", "main"]), head_before, "a preview moves nothing");
    let merged = worktree::merge(&plan(&repo, &one, "preflight/c1", false)).unwrap();
    assert_eq!(git(&repo, &["rev-parse", "main"]), merged.commit);
    assert_eq!(std::fs::read_to_string(repo.join("prices.txt")).unwrap(), "apple 3\npear 2\n");
    assert_eq!(git(&repo, &["rev-list", "--parents", "-n1", "main"]).split(' ').count(), 3);
    assert!(git(&repo, &["log", "-1", "--format=%B", "main"]).starts_with("Raise the prices"));
    assert!(git(&repo, &["status", "--porcelain"]).is_empty(), "the checkout is up to date");

    let second = plan(&repo, &two, "preflight/c2", false);
    let preview = worktree::preview(&second).unwrap();
    assert_eq!(preview.conflicts, ["prices.txt"]);
    let refused = worktree::merge(&second).unwrap_err();
    assert!(matches!(refused, WorktreeError::Conflicts { .. }), "{refused}");
    assert!(refused.to_string().contains("prices.txt"), "{refused}");
    assert_eq!(git(&repo, &["rev-parse", "main"]), merged.commit, "nothing changed");
    assert_eq!(git(&two, &["rev-parse", "HEAD"]), started.base_commit, "nor on its branch");
}

#[test]
fn the_users_own_changes_to_those_files_refuse_a_merge_and_a_squash_is_one_commit() {
    let (_root, repo, home) = repository();
    let one = worktree::folder_of(&home, "c1", &repo);
    worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    std::fs::write(one.join("README.md"), "# Shop\n\nOpen daily.\n").unwrap();
    std::fs::write(repo.join("README.md"), "# My shop\n").unwrap();
    let squash = plan(&repo, &one, "preflight/c1", true);
    let preview = worktree::preview(&squash).unwrap();
    assert_eq!(preview.checkout_changed, ["README.md"]);
    let refused = worktree::merge(&squash).unwrap_err();
    assert!(matches!(refused, WorktreeError::CheckoutChanged { .. }), "{refused}");
    assert_eq!(std::fs::read_to_string(repo.join("README.md")).unwrap(), "# My shop\n");

    git(&repo, &["checkout", "--quiet", "README.md"]);
    let before = git(&repo, &["rev-parse", "main"]);
    let merged = worktree::merge(&squash).unwrap();
    assert_eq!(git(&repo, &["rev-parse", "main~1"]), before, "one commit on top");
    assert_eq!(git(&repo, &["rev-list", "--parents", "-n1", "main"]).split(' ').count(), 2);
    assert_eq!(std::fs::read_to_string(repo.join("README.md")).unwrap(), "# Shop\n\nOpen daily.\n");
    let again = worktree::preview(&squash).unwrap();
    assert!(again.diff.files.is_empty(), "nothing new to bring: {again:?}");
    assert_eq!(git(&repo, &["rev-parse", "preflight/c1"]), merged.tip, "its work on its branch");
}

#[test]
fn a_branch_not_checked_out_moves_by_its_ref_and_the_checkout_stays() {
    let (_root, repo, home) = repository();
    let one = worktree::folder_of(&home, "c1", &repo);
    worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    git(&repo, &["checkout", "--quiet", "-b", "elsewhere"]);
    std::fs::write(one.join("prices.txt"), "apple 5\n").unwrap();
    let merged = worktree::merge(&plan(&repo, &one, "preflight/c1", false)).unwrap();
    assert_eq!(git(&repo, &["rev-parse", "main"]), merged.commit);
    assert_eq!(std::fs::read_to_string(repo.join("prices.txt")).unwrap(), "apple 1\npear 2\n");
}

#[test]
fn kept_as_a_branch_the_work_is_committed_and_the_folder_made_again_from_it() {
    let (_root, repo, home) = repository();
    let one = worktree::folder_of(&home, "c1", &repo);
    let started = worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    std::fs::write(one.join("notes.txt"), "kept\n").unwrap();
    let commit = worktree::keep(&repo, &one, "Notes").unwrap();
    assert!(!one.exists(), "the folder is gone; the branch is the user's to check out");
    assert_eq!(git(&repo, &["rev-parse", "preflight/c1"]), commit);
    assert_eq!(git(&repo, &["show", "preflight/c1:notes.txt"]), "kept");
    git(&repo, &["checkout", "--quiet", "preflight/c1"]);
    git(&repo, &["checkout", "--quiet", "main"]);

    worktree::recreate(&repo, &one, "preflight/c1").unwrap();
    assert_eq!(std::fs::read_to_string(one.join("notes.txt")).unwrap(), "kept\n");
    std::fs::remove_dir_all(&one).unwrap();
    let missing = worktree::diff(&repo, &one, &started.base_commit, 1 << 20).unwrap_err();
    assert!(matches!(missing, WorktreeError::Missing { .. }), "{missing}");
    worktree::recreate(&repo, &one, "preflight/c1").unwrap();
    assert!(one.join("notes.txt").is_file(), "made again from its branch");
}

#[test]
fn removing_keeps_unmerged_work_on_its_branch_and_deletes_a_branch_with_nothing_on_it() {
    let (_root, repo, home) = repository();
    let (one, two) =
        (worktree::folder_of(&home, "c1", &repo), worktree::folder_of(&home, "c2", &repo));
    let first = worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    let second = worktree::start(&repo, &two, "preflight/c2", None).unwrap();
    std::fs::write(one.join("work.txt"), "unmerged\n").unwrap();
    let removal =
        |branch, base_commit| Removal { branch, base_commit, merged_into: None, message: "Left" };
    assert!(worktree::remove(&repo, &one, &removal("preflight/c1", &first.base_commit)).unwrap());
    assert!(!one.exists());
    assert_eq!(git(&repo, &["show", "preflight/c1:work.txt"]), "unmerged", "nothing is lost");
    assert!(!worktree::remove(&repo, &two, &removal("preflight/c2", &second.base_commit)).unwrap());
    assert!(git(&repo, &["branch", "--list", "preflight/c2"]).is_empty());
    assert_eq!(git(&repo, &["worktree", "list"]).lines().count(), 1);
}

#[test]
fn a_repository_without_a_commit_or_a_subfolder_is_refused() {
    let (_root, repo, home) = repository();
    let sub = repo.join("sub");
    std::fs::create_dir(&sub).unwrap();
    let refused = worktree::start(&sub, &home.join("w"), "preflight/x", None).unwrap_err();
    assert!(matches!(refused, WorktreeError::NotARepository(_)), "{refused}");
    let empty = home.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    git(&empty, &["init", "--quiet"]);
    let refused = worktree::start(&empty, &home.join("w"), "preflight/x", None).unwrap_err();
    assert!(matches!(refused, WorktreeError::NoCommit(_)), "{refused}");
    assert!(refused.to_string().contains("commit once"), "{refused}");
}

#[test]
fn a_squash_merged_twice_has_nothing_left_and_a_stale_preview_is_refused() {
    let (_root, repo, home) = repository();
    let one = worktree::folder_of(&home, "c1", &repo);
    worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    std::fs::write(one.join("prices.txt"), "apple 4\n").unwrap();
    let squash = plan(&repo, &one, "preflight/c1", true);
    let seen = worktree::preview(&squash).unwrap();
    std::fs::write(one.join("prices.txt"), "apple 5\n").unwrap();
    let stale = MergePlan { expect: Some(&seen.digest), ..squash };
    let refused = worktree::merge(&stale).unwrap_err();
    assert!(matches!(refused, WorktreeError::PreviewChanged), "{refused}");
    let fresh = worktree::preview(&squash).unwrap();
    worktree::merge(&MergePlan { expect: Some(&fresh.digest), ..squash }).unwrap();
    assert_eq!(std::fs::read_to_string(repo.join("prices.txt")).unwrap(), "apple 5\n");
    let again = worktree::preview(&squash).unwrap();
    assert!(again.nothing_to_merge && !again.can_merge(), "{again:?}");
    let before = git(&repo, &["rev-parse", "main"]);
    assert!(matches!(worktree::merge(&squash).unwrap_err(), WorktreeError::NothingToMerge { .. }));
    assert_eq!(git(&repo, &["rev-parse", "main"]), before, "no empty commit on main");
}

#[test]
fn a_base_checked_out_in_another_worktree_and_an_ignored_file_of_the_user_refuse_the_merge() {
    let (_root, repo, home) = repository();
    let one = worktree::folder_of(&home, "c1", &repo);
    worktree::start(&repo, &one, "preflight/c1", None).unwrap();
    std::fs::write(one.join(".gitignore"), "").unwrap();
    std::fs::write(one.join(".env"), "SECRET=chat\n").unwrap();
    std::fs::write(repo.join(".gitignore"), "target/\n.env\n").unwrap();
    git(&repo, &["commit", "-qam", "ignore .env"]);
    std::fs::write(repo.join(".env"), "SECRET=user\n").unwrap();
    let merge = plan(&repo, &one, "preflight/c1", false);
    let preview = worktree::preview(&merge).unwrap();
    assert!(preview.checkout_changed.contains(&".env".to_owned()), "{preview:?}");
    assert!(worktree::merge(&merge).is_err());
    assert_eq!(std::fs::read_to_string(repo.join(".env")).unwrap(), "SECRET=user\n");

    git(&repo, &["checkout", "-q", "-b", "other"]);
    let theirs = home.join("theirs");
    git(&repo, &["worktree", "add", "-q", theirs.to_str().unwrap(), "main"]);
    let busy = worktree::preview(&merge).unwrap_err();
    assert!(matches!(busy, WorktreeError::BaseBusy(_)), "{busy}");
    assert!(busy.to_string().contains("another worktree"), "{busy}");
}
