//! The user's own repository in the workspace — a commit, a staged change, a stash — is the
//! same byte for byte after checkpoints are taken, compared and restored: its index, refs,
//! stash and status untouched, and none of it kept in a checkpoint.

mod support;

use support::{every_file, Setup};

/// A repository with history, a stash, a staged change and an unstaged one.
fn users_repository(setup: &Setup) {
    setup.user_git(&["init", "--quiet"]);
    setup.write("app.py", "print('v1')\n");
    setup.write("lib.py", "def f():\n    return 1\n");
    setup.user_git(&["add", "."]);
    setup.user_git(&["commit", "--quiet", "-m", "first"]);
    setup.write("app.py", "print('stashed')\n");
    setup.user_git(&["stash", "--quiet"]);
    setup.write("lib.py", "def f():\n    return 2\n");
    setup.user_git(&["add", "lib.py"]);
    setup.write("app.py", "print('unstaged')\n");
}

/// What the user's git says of the repository, without refreshing anything.
fn users_view(setup: &Setup) -> (String, String, String) {
    let status = setup.user_git(&["status", "--porcelain"]);
    let refs = setup.user_git(&["show-ref"]);
    let stash = setup.user_git(&["stash", "list"]);
    (status, refs, stash)
}

#[test]
fn the_users_repository_is_untouched_by_snapshot_diff_and_restore() {
    let setup = Setup::new();
    users_repository(&setup);
    let git_folder = setup.ws().join(".git");
    let bytes_before = every_file(&git_folder);
    let index_before = std::fs::read(git_folder.join("index")).unwrap();
    let view_before = users_view(&setup);
    assert!(view_before.1.contains("refs/stash"), "{view_before:?}");

    let repo = setup.repo();
    let first = repo.snapshot("before").unwrap();
    setup.write("app.py", "print('the agent was here')\n");
    setup.write("new.py", "x = 1\n");
    let second = repo.snapshot("after").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(paths, ["app.py", "new.py"], "nothing of .git in a checkpoint");
    repo.restore_plan(&first.commit, &second.commit).unwrap();
    let report = support::restore(&repo, &first.commit, &second.commit, false).unwrap();
    assert_eq!((report.written, report.deleted), (vec!["app.py".into()], vec!["new.py".into()]));

    assert_eq!(std::fs::read(git_folder.join("index")).unwrap(), index_before, "the index");
    assert_eq!(every_file(&git_folder), bytes_before, "every file of .git, byte for byte");
    assert_eq!(users_view(&setup), view_before, "status, refs and stash");
}

#[test]
fn a_first_snapshot_keeps_the_work_tree_not_the_users_index() {
    let setup = Setup::new();
    users_repository(&setup);
    let repo = setup.repo();
    let first = repo.snapshot("first").unwrap();
    // The work tree has app.py unstaged and lib.py staged: both as they are on disk.
    setup.write("app.py", "print('v1')\n");
    setup.write("lib.py", "def f():\n    return 1\n");
    let committed = repo.snapshot("as committed").unwrap();
    let report = support::restore(&repo, &first.commit, &committed.commit, false).unwrap();
    assert_eq!(report.written, ["app.py", "lib.py"]);
    assert_eq!(setup.read("app.py"), b"print('unstaged')\n");
    assert_eq!(setup.read("lib.py"), b"def f():\n    return 2\n");
}
