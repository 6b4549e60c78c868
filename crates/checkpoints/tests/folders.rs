//! Which folder a checkpoint is of, and which folders it never holds: Preflight's own
//! (`.sandbox/`, `.dwp/`) stay out whatever the workspace's `.gitignore` says, and a
//! checkpoint of one folder is never restored into, or compared against, another (issue 46).

mod support;

use preflight_checkpoints::{CheckpointError, Limits, ShadowRepo};
use support::Setup;

#[test]
fn a_gitignore_that_unignores_preflights_folders_keeps_them_out_and_untouched() {
    let setup = Setup::new();
    setup.write(".gitignore", "!.sandbox/\n!.dwp/\n!.sandbox\n!.dwp\n");
    setup.write("code.py", "x = 1\n");
    let repo = setup.repo();
    let first = repo.snapshot("before the venv").unwrap();
    // What the sandbox and the plan folder hold once the run made them.
    for n in 0..20 {
        setup.write(&format!(".sandbox/venv/lib/site/mod{n}.py"), format!("n = {n}\n"));
    }
    setup.write(".dwp/plans/1/plan.md", "the plan\n");
    setup.write("sub/.sandbox/inner", "nested sandbox state\n");
    setup.write("code.py", "x = 2\n");
    let second = repo.snapshot("after").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["code.py"], "Preflight's folders are not kept");

    let plan = repo.restore_plan(&first.commit, &second.commit).unwrap();
    assert_eq!((plan.writes, plan.deletes), (vec!["code.py".to_owned()], vec![]));
    let before = setup.tree();
    let report = support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert_eq!((report.written, report.deleted), (vec!["code.py".to_owned()], vec![]));
    let mut after = setup.tree();
    after.remove("code.py");
    let mut expected = before;
    expected.remove("code.py");
    assert_eq!(after, expected, "the sandbox's and the plan folder's files are untouched");
    assert_eq!(setup.read("code.py"), b"x = 1\n");
}

#[test]
fn a_checkpoint_of_another_folder_is_neither_restored_nor_compared() {
    let setup = Setup::new();
    let old = tempfile::tempdir().unwrap();
    std::fs::write(old.path().join("secret.txt"), "the old folder's file\n").unwrap();
    let old_repo = ShadowRepo::open(&setup.git_dir(), old.path(), Limits::default()).unwrap();
    let of_old = old_repo.snapshot("old folder").unwrap();

    // The chat's workspace moved: the same shadow repository now over another folder.
    setup.write("mine.txt", "the new folder's file\n");
    let repo = setup.repo();
    let of_new = repo.snapshot("new folder").unwrap();
    let before = setup.tree();
    let refused = [
        support::restore(&repo, &of_old.commit, &of_new.commit, true).unwrap_err(),
        repo.restore_plan(&of_old.commit, &of_new.commit).unwrap_err(),
        repo.diff(&of_old.commit, &of_new.commit).unwrap_err(),
    ];
    for error in refused {
        let text = error.to_string();
        assert!(matches!(error, CheckpointError::OtherFolder { .. }), "{text}");
        let old_name = std::fs::canonicalize(old.path()).unwrap().display().to_string();
        let new_name = std::fs::canonicalize(setup.ws()).unwrap().display().to_string();
        assert!(text.contains(&old_name) && text.contains(&new_name), "{text}");
    }
    assert_eq!(setup.tree(), before, "nothing written into the new folder");
    assert!(!setup.exists("secret.txt"));

    // The new folder's own checkpoints work as ever.
    setup.write("mine.txt", "changed\n");
    let later = repo.snapshot("later").unwrap();
    assert_eq!(repo.diff(&of_new.commit, &later.commit).unwrap().files.len(), 1);
    support::restore(&repo, &of_new.commit, &later.commit, true).unwrap();
    assert_eq!(setup.read("mine.txt"), b"the new folder's file\n");
}

/// A checkpoint made by hand in the shadow repository, holding `files`, as one taken before
/// Preflight's folders were kept out by name (and before checkpoints named their folder).
fn handmade_checkpoint(setup: &Setup, files: &[(&str, &str)]) -> String {
    let scratch = tempfile::tempdir().unwrap();
    let git = |args: &[&str], input: &str| -> String {
        use std::io::Write;
        let mut child = support::user_git_command(setup.ws(), setup.home.path())
            .env("GIT_DIR", setup.git_dir())
            .env("GIT_INDEX_FILE", scratch.path().join("index"))
            .args(args)
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "git {args:?}");
        String::from_utf8(output.stdout).unwrap().trim().to_owned()
    };
    for (path, text) in files {
        let blob = git(&["hash-object", "-w", "--stdin"], text);
        git(&["update-index", "--add", "--cacheinfo", &format!("100644,{blob},{path}")], "");
    }
    let tree = git(&["write-tree"], "");
    let commit = git(&["commit-tree", &tree, "-m", "taken before"], "");
    git(&["update-ref", &format!("refs/checkpoints/{commit}"), &commit], "");
    commit
}

#[test]
fn a_checkpoint_that_holds_preflights_folders_never_writes_or_deletes_them() {
    let setup = Setup::new();
    setup.write("code.py", "x = 1\n");
    let repo = setup.repo();
    let held = handmade_checkpoint(
        &setup,
        &[("code.py", "x = 0\n"), (".sandbox/venv/x", "old\n"), (".dwp/plan.md", "old plan\n")],
    );
    let latest = repo.snapshot("now").unwrap().commit;
    setup.write(".sandbox/venv/x", "the venv's now\n");
    setup.write(".sandbox/venv/y", "made since\n");
    let plan = repo.restore_plan(&held, &latest).unwrap();
    assert_eq!((plan.writes, plan.deletes), (vec!["code.py".to_owned()], vec![]));
    let report = support::restore(&repo, &held, &latest, true).unwrap();
    assert_eq!((report.written, report.deleted), (vec!["code.py".to_owned()], vec![]));
    assert_eq!(setup.read("code.py"), b"x = 0\n");
    assert_eq!(setup.read(".sandbox/venv/x"), b"the venv's now\n");
    assert_eq!(setup.read(".sandbox/venv/y"), b"made since\n");
    assert!(!setup.exists(".dwp/plan.md"), "nothing written into the plan folder");
}

#[test]
fn caches_and_installed_packages_stay_out_of_diffs_unless_gitignore_unignores_them() {
    let setup = Setup::new();
    setup.write("textutils.py", "def f(): pass\n");
    let repo = setup.repo();
    let first = repo.snapshot("before the checks").unwrap();
    // What a test run and an install leave behind.
    setup.write("__pycache__/textutils.cpython-311.pyc", "bytecode");
    setup.write("tests/__pycache__/test_x.cpython-311.pyc", "bytecode");
    setup.write("stray.pyc", "bytecode");
    setup.write(".pytest_cache/v/cache/nodeids", "[]");
    setup.write(".venv/lib/site.py", "x = 1\n");
    setup.write("web/node_modules/left-pad/index.js", "module.exports = 1;\n");
    setup.write("textutils.py", "def f(): return 1\n");
    let second = repo.snapshot("after the checks").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["textutils.py"], "only the work is in the diff");

    // A workspace that keeps its packages in git says so, and then they are kept.
    setup.write(".gitignore", "!node_modules/\n");
    let third = repo.snapshot("packages kept").unwrap();
    let diff = repo.diff(&second.commit, &third.commit).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, [".gitignore", "web/node_modules/left-pad/index.js"]);
}
