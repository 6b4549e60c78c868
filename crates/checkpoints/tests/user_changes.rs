//! A restore keeps what the user changed since the latest checkpoint: the plan names those
//! files, the restore leaves them as they are unless told to overwrite them.

mod support;

use preflight_checkpoints::{CheckpointError, Limits, RestorePlan, RestoreReport, ShadowRepo};
use support::Setup;

/// A first checkpoint, the agent's work and a second one, then the user's own edits.
fn agent_then_user(setup: &Setup) -> (ShadowRepo, String, String) {
    let limits = Limits { max_file_bytes: 1024, ..Limits::default() };
    let repo = setup.repo_with(limits);
    setup.write("agent.txt", "before\n");
    setup.write("both.txt", "before\n");
    setup.write("gone.txt", "before\n");
    setup.write("data.csv", "a,b\n");
    let first = repo.snapshot("before the turn").unwrap().commit;
    setup.write("agent.txt", "the agent's\n");
    setup.write("both.txt", "the agent's\n");
    setup.write("made.txt", "made by the agent\n");
    let latest = repo.snapshot("after the turn").unwrap().commit;
    setup.write("both.txt", "the user's, after the agent\n");
    setup.remove("gone.txt");
    setup.write("mine.txt", "the user's new file\n");
    // Grown past what a checkpoint keeps: the shadow repository holds no copy of it now.
    setup.write("data.csv", "x".repeat(2048));
    (repo, first, latest)
}

#[test]
fn the_plan_names_the_users_changes_and_the_restore_keeps_them() {
    let setup = Setup::new();
    let (repo, first, latest) = agent_then_user(&setup);
    let plan = repo.restore_plan(&first, &latest).unwrap();
    let strings = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert_eq!(
        plan,
        RestorePlan {
            writes: strings(&["agent.txt", "both.txt", "data.csv", "gone.txt"]),
            deletes: strings(&["made.txt", "mine.txt"]),
            user_changed: strings(&["both.txt", "data.csv", "gone.txt", "mine.txt"]),
            digest: plan.digest.clone(),
        }
    );
    assert_eq!(plan.digest.len(), 40, "{plan:?}");
    assert_eq!(repo.restore_plan(&first, &latest).unwrap(), plan, "the same plan, the same digest");
    assert_eq!(setup.read("agent.txt"), b"the agent's\n", "a plan changes nothing");

    let report = support::restore(&repo, &first, &latest, false).unwrap();
    assert_eq!(
        report,
        RestoreReport {
            written: strings(&["agent.txt"]),
            deleted: strings(&["made.txt"]),
            kept_user_changes: strings(&["both.txt", "data.csv", "gone.txt", "mine.txt"]),
        }
    );
    assert_eq!(setup.read("agent.txt"), b"before\n");
    assert!(!setup.exists("made.txt"));
    assert_eq!(setup.read("both.txt"), b"the user's, after the agent\n");
    assert_eq!(setup.read("mine.txt"), b"the user's new file\n");
    assert_eq!(setup.read("data.csv"), "x".repeat(2048).as_bytes());
    assert!(!setup.exists("gone.txt"));
}

#[test]
fn told_to_overwrite_the_restore_puts_back_everything() {
    let setup = Setup::new();
    let (repo, first, latest) = agent_then_user(&setup);
    let report = support::restore(&repo, &first, &latest, true).unwrap();
    assert_eq!(report.kept_user_changes, Vec::<String>::new());
    assert_eq!(report.written, ["agent.txt", "both.txt", "data.csv", "gone.txt"]);
    assert_eq!(report.deleted, ["made.txt", "mine.txt"]);
    for file in ["agent.txt", "both.txt", "gone.txt"] {
        assert_eq!(setup.read(file), b"before\n", "{file}");
    }
    assert_eq!(setup.read("data.csv"), b"a,b\n");
    assert!(!setup.exists("made.txt") && !setup.exists("mine.txt"));
}

#[test]
fn a_user_symlink_where_a_folder_was_keeps_what_goes_beneath_it() {
    let setup = Setup::new();
    let repo = setup.repo();
    setup.write("docs/a.md", "a\n");
    let first = repo.snapshot("first").unwrap().commit;
    let latest = repo.snapshot("latest").unwrap().commit;
    let outside = tempfile::tempdir().unwrap();
    std::fs::remove_dir_all(setup.ws().join("docs")).unwrap();
    setup.symlink(outside.path().to_str().unwrap(), "docs");
    let report = support::restore(&repo, &first, &latest, false).unwrap();
    assert_eq!(report.kept_user_changes, ["docs", "docs/a.md"]);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written through it");
    let report = support::restore(&repo, &first, &latest, true).unwrap();
    assert_eq!((report.deleted, report.written), (vec!["docs".into()], vec!["docs/a.md".into()]));
    assert_eq!(setup.read("docs/a.md"), b"a\n");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}

#[test]
fn a_restore_whose_plan_changed_since_the_preview_changes_nothing() {
    let setup = Setup::new();
    let (repo, first, latest) = agent_then_user(&setup);
    let preview = repo.restore_plan(&first, &latest).unwrap();
    // After the preview, agent.txt (to be written back, not the user's then) is edited: the
    // restore would now overwrite an edit the preview never showed.
    setup.write("agent.txt", "edited after the preview\n");
    let before = setup.tree();
    for overwrite in [false, true] {
        let error = repo.restore(&first, &latest, overwrite, &preview.digest).unwrap_err();
        assert!(matches!(error, CheckpointError::PlanChanged), "{error}");
    }
    assert_eq!(setup.tree(), before, "nothing written or deleted");
    // A later checkpoint changes the plan too (what counts as the user's).
    let again = repo.restore_plan(&first, &latest).unwrap();
    assert_ne!(again.digest, preview.digest);
    let newer = repo.snapshot("a turn since").unwrap().commit;
    let error = repo.restore(&first, &newer, false, &again.digest).unwrap_err();
    assert!(matches!(error, CheckpointError::PlanChanged), "{error}");
    assert_eq!(setup.tree(), before);
    // Previewed afresh, it goes ahead.
    let fresh = repo.restore_plan(&first, &newer).unwrap();
    repo.restore(&first, &newer, true, &fresh.digest).unwrap();
    assert_eq!(setup.read("agent.txt"), b"before\n");
}
