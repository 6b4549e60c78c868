//! The edges of snapshot, diff and restore: an empty workspace, untrusted commit strings, the
//! time budget, the size caps, nested repositories, symlinks that point out of the
//! workspace, names git would read as patterns, and letting checkpoints go.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use preflight_checkpoints::{CheckpointError, DiffStat, Limits, SkipReason, Skipped};
use support::Setup;

#[test]
fn an_empty_workspace_snapshots_diffs_and_restores() {
    let setup = Setup::new();
    let repo = setup.repo();
    let first = repo.snapshot("empty").unwrap();
    assert_eq!((first.changed, first.skipped.len()), (0, 0));
    let second = repo.snapshot("still empty").unwrap();
    assert_ne!(first.commit, second.commit, "each checkpoint is a commit of its own");
    assert_eq!(repo.diff(&first.commit, &second.commit).unwrap().files, vec![]);
    setup.write("new.txt", "x\n");
    let report = support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert_eq!(report.deleted, ["new.txt"]);
    assert_eq!(std::fs::read_dir(setup.ws()).unwrap().count(), 0);
}

#[test]
fn a_bad_commit_string_is_not_found_and_changes_nothing() {
    let setup = Setup::new();
    let repo = setup.repo();
    setup.write("a.txt", "a\n");
    let good = repo.snapshot("good").unwrap().commit;
    setup.write("a.txt", "changed\n");
    let unknown = "0123456789abcdef0123456789abcdef01234567";
    let bad = ["HEAD", "--output=/tmp/owned", "", "../x", unknown, &good[..39], "refs/checkpoints"];
    for text in bad {
        let errors = [
            repo.diff(text, &good).unwrap_err(),
            repo.stat(&good, text).unwrap_err(),
            repo.restore_plan(text, &good).unwrap_err(),
            repo.restore(text, &good, true, "").unwrap_err(),
        ];
        for error in errors {
            assert!(matches!(error, CheckpointError::NotFound { .. }), "{text:?}: {error}");
        }
    }
    assert!(matches!(repo.forget(&["HEAD"]), Err(CheckpointError::NotFound { .. })));
    assert_eq!(setup.read("a.txt"), b"changed\n");
    assert_eq!(repo.stat(&good, &good.to_uppercase()).unwrap(), DiffStat::default());
}

#[test]
fn an_operation_past_its_time_budget_is_a_clear_error_and_harms_nothing() {
    let setup = Setup::new();
    setup.write("small.txt", "small\n");
    let block = noise(4 * 1024 * 1024);
    for n in 0..10 {
        // Different files (no two alike) that do not compress: seconds of hashing for git.
        setup.write(&format!("noise/{n}.bin"), [&n.to_string().into_bytes()[..], &block].concat());
    }
    setup.repo();
    for budget in [Duration::ZERO, Duration::from_millis(200)] {
        let hurried = setup.repo_with(Limits { time_budget: budget, ..Limits::default() });
        let error = hurried.snapshot("too slow").unwrap_err();
        assert!(matches!(error, CheckpointError::TimedOut { .. }), "{error}");
        assert!(error.to_string().contains("time budget"), "{error}");
    }
    std::fs::remove_dir_all(setup.ws().join("noise")).unwrap();
    let snapshot = setup.repo().snapshot("in time").unwrap();
    assert_eq!(snapshot.changed, 1, "the repository is usable after a call was killed");
}

#[test]
fn past_the_checkpoints_cap_files_wait_for_the_next_one() {
    let setup = Setup::new();
    let repo = setup.repo_with(Limits { max_checkpoint_bytes: 100, ..Limits::default() });
    setup.write("a.txt", "a".repeat(60));
    setup.write("b.txt", "b".repeat(60));
    setup.write("c.txt", "c".repeat(10));
    let first = repo.snapshot("first").unwrap();
    let full = Skipped { path: "b.txt".into(), bytes: 60, reason: SkipReason::CheckpointFull };
    assert_eq!((first.changed, first.skipped), (2, vec![full]));
    let second = repo.snapshot("second").unwrap();
    assert_eq!((second.changed, second.skipped), (1, vec![]));
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    assert_eq!(diff.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["b.txt"]);
}

#[test]
fn a_nested_repository_is_left_out_reported_and_never_deleted() {
    let setup = Setup::new();
    let repo = setup.repo();
    setup.write("top.txt", "top\n");
    let first = repo.snapshot("first").unwrap();
    setup.write("vendor/lib/code.c", "int x;\n");
    support::user_git_command(&setup.ws().join("vendor/lib"), setup.home.path())
        .args(["init", "--quiet"])
        .status()
        .unwrap();
    let second = repo.snapshot("second").unwrap();
    let nested =
        Skipped { path: "vendor/lib/".into(), bytes: 0, reason: SkipReason::NestedRepository };
    assert_eq!((second.changed, second.skipped), (0, vec![nested]));
    let report = support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert_eq!((report.written.len(), report.deleted.len()), (0, 0));
    assert_eq!(setup.read("vendor/lib/code.c"), b"int x;\n");
}

#[test]
fn symlinks_out_of_the_workspace_are_kept_as_links_never_followed() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret\n").unwrap();
    let repo = setup.repo();
    let first = repo.snapshot("first").unwrap();
    setup.symlink(outside.path().to_str().unwrap(), "outside");
    setup.symlink("../../..", "up");
    setup.symlink(&outside.path().join("secret.txt").display().to_string(), "secret-link");
    let second = repo.snapshot("second").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    let paths: Vec<&str> = diff.files.iter().map(|f| f.path.as_str()).collect();
    assert_eq!(paths, ["outside", "secret-link", "up"]);
    let patches: String = diff.files.iter().filter_map(|f| f.patch.clone()).collect();
    assert!(patches.contains("new file mode 120000") && !patches.contains("secret\n"), "{patches}");
    support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert!(!setup.exists("outside") && !setup.exists("up") && !setup.exists("secret-link"));
    assert_eq!(std::fs::read(outside.path().join("secret.txt")).unwrap(), b"secret\n");
}

#[test]
fn a_restore_through_a_symlinked_folder_is_refused_before_anything_changes() {
    let setup = Setup::new();
    let outside = tempfile::tempdir().unwrap();
    let repo = setup.repo();
    setup.write("build/x.txt", "built\n");
    setup.write("y.txt", "y\n");
    let first = repo.snapshot("first").unwrap();
    std::fs::remove_dir_all(setup.ws().join("build")).unwrap();
    setup.write(".gitignore", "build\n");
    setup.symlink(outside.path().to_str().unwrap(), "build");
    setup.write("y.txt", "changed\n");
    let latest = repo.snapshot("latest").unwrap();
    let error = support::restore(&repo, &first.commit, &latest.commit, true).unwrap_err();
    assert!(
        matches!(&error, CheckpointError::Refused { path, .. } if path == "build/x.txt"),
        "{error}"
    );
    assert_eq!(setup.read("y.txt"), b"changed\n", "nothing changed");
    assert!(setup.exists(".gitignore"));
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");
}

#[test]
fn names_git_would_read_as_patterns_or_options_are_plain_names() {
    let setup = Setup::new();
    let repo = setup.repo();
    let names =
        ["*.txt", ":(exclude)x", "-rf", "naïve file.txt", "tab\there", "new\nline", "\\back"];
    for name in names {
        setup.write(name, name);
    }
    setup.write("other.txt", "other\n");
    let first = repo.snapshot("first").unwrap();
    assert_eq!(first.changed, names.len() + 1);
    for name in names {
        setup.write(name, "changed");
    }
    let second = repo.snapshot("second").unwrap();
    assert_eq!(second.changed, names.len(), "other.txt is not matched by `*.txt`");
    let report = support::restore(&repo, &first.commit, &second.commit, false).unwrap();
    assert_eq!(report.written.len(), names.len());
    for name in names {
        assert_eq!(setup.read(name), name.as_bytes(), "{name:?}");
    }
}

#[test]
fn a_patch_past_its_cap_is_left_out_and_its_figures_stand() {
    let setup = Setup::new();
    let repo = setup.repo_with(Limits { max_patch_bytes: 400, ..Limits::default() });
    let first = repo.snapshot("first").unwrap();
    let long: String = (0..100).map(|n| format!("line {n}\n")).collect();
    setup.write("long.txt", &long);
    setup.write("short.txt", "short\n");
    let second = repo.snapshot("second").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    let summary: Vec<(&str, usize, bool, bool)> = diff
        .files
        .iter()
        .map(|f| (f.path.as_str(), f.additions, f.too_large, f.patch.is_some()))
        .collect();
    assert_eq!(summary, [("long.txt", 100, true, false), ("short.txt", 1, false, true)]);
    assert_eq!(diff.additions, 101);
}

#[test]
fn preflights_own_folders_are_never_kept_or_touched() {
    let setup = Setup::new();
    let repo = setup.repo();
    setup.write("code.py", "x = 1\n");
    let first = repo.snapshot("first").unwrap();
    setup.write(".sandbox/venv/state", "sandbox state");
    setup.write(".dwp/plan.md", "plan");
    setup.write("sub/.sandbox/inner", "nested sandbox state");
    setup.write("code.py", "x = 2\n");
    let second = repo.snapshot("second").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();
    assert_eq!(diff.files.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["code.py"]);
    let report = support::restore(&repo, &first.commit, &second.commit, true).unwrap();
    assert_eq!((report.written, report.deleted), (vec!["code.py".into()], vec![]));
    for kept in [".sandbox/venv/state", ".dwp/plan.md", "sub/.sandbox/inner"] {
        assert!(setup.exists(kept), "{kept}");
    }
}

#[test]
fn forgetting_a_checkpoint_frees_what_only_it_held() {
    let setup = Setup::new();
    let repo = setup.repo();
    setup.write("noise.bin", noise(2 * 1024 * 1024));
    let first = repo.snapshot("with the noise").unwrap();
    setup.remove("noise.bin");
    setup.write("small.txt", "small\n");
    let second = repo.snapshot("without").unwrap();
    let before = repo.disk_usage();
    repo.forget(&[&first.commit]).unwrap();
    let after = repo.disk_usage();
    assert!(before - after > 1024 * 1024, "{before} -> {after}");
    assert!(matches!(
        repo.diff(&first.commit, &second.commit),
        Err(CheckpointError::NotFound { .. })
    ));
    assert_eq!(repo.diff(&second.commit, &second.commit).unwrap().files, vec![]);
}

#[test]
fn the_shadow_repository_is_private_and_outside_the_workspace() {
    let setup = Setup::new();
    setup.repo();
    let mode = std::fs::metadata(setup.git_dir()).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o700);
    setup.repo(); // opening again is fine
    let inside = preflight_checkpoints::ShadowRepo::open(
        &setup.ws().join(".shadow.git"),
        setup.ws(),
        Limits::default(),
    );
    assert!(matches!(inside, Err(CheckpointError::Io { .. })));
    assert!(!setup.exists(".shadow.git"), "nothing created in the workspace");
}

/// Bytes that do not compress (xorshift).
fn noise(len: usize) -> Vec<u8> {
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 24) as u8
        })
        .collect()
}

#[test]
fn a_diff_of_many_files_is_cut_at_its_total_budget_and_says_what_was_left_out() {
    let setup = Setup::new();
    let budget = 16 * 1024;
    let repo = setup.repo_with(Limits { max_diff_bytes: budget, ..Limits::default() });
    let first = repo.snapshot("first").unwrap();
    let body: String =
        (0..10).map(|n| format!("line {n} of a file with some words in it\n")).collect();
    for n in 0..400 {
        setup.write(&format!("src/module_{n:03}.txt"), &body);
    }
    let second = repo.snapshot("second").unwrap();
    let diff = repo.diff(&first.commit, &second.commit).unwrap();

    let patches: usize = diff.files.iter().filter_map(|f| f.patch.as_ref()).map(String::len).sum();
    let entries: usize = diff.files.iter().map(|f| f.path.len()).sum();
    assert!(patches + entries <= budget, "{patches} + {entries} bytes past the budget");
    assert!(!diff.files.is_empty() && diff.files.iter().any(|f| f.patch.is_some()));
    let cut = diff.truncated.expect("the diff says it was cut");
    assert_eq!(cut.budget, budget as u64);
    assert!(cut.files_left_out > 0, "{cut:?}");
    assert_eq!(diff.changed_files(), 400, "every changed file is counted");
    let without_patch = diff.files.iter().filter(|f| f.patch.is_none()).count();
    assert_eq!(cut.patches_left_out, without_patch, "{cut:?}");
    assert!(diff.files.iter().filter(|f| f.patch.is_none()).all(|f| f.too_large));
    // Each file's patch is a header of about 100 bytes and its 10 lines.
    let left_out_files = (cut.files_left_out + cut.patches_left_out) as u64;
    assert!(cut.bytes_left_out > left_out_files * body.len() as u64, "{cut:?}");
    assert_eq!((diff.additions, diff.deletions), (4000, 0), "the figures are of every file");

    let small = repo.diff(&first.commit, &first.commit).unwrap();
    assert_eq!(small.truncated, None);
    let (one, two) = (repo.snapshot("a").unwrap(), {
        setup.write("src/module_000.txt", "changed\n");
        repo.snapshot("b").unwrap()
    });
    let within = repo.diff(&one.commit, &two.commit).unwrap();
    assert_eq!((within.files.len(), within.truncated), (1, None), "a small diff is whole");
}
