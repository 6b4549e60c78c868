//! A restore keeps what the user changed since the latest checkpoint: the plan names those
//! files, the restore leaves them as they are unless told to overwrite them.

mod support;

use preflight_checkpoints::{Limits, RestorePlan, RestoreReport, ShadowRepo};
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
        }
    );
    assert_eq!(setup.read("agent.txt"), b"the agent's\n", "a plan changes nothing");

    let report = repo.restore(&first, &latest, false).unwrap();
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
    let report = repo.restore(&first, &latest, true).unwrap();
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
    let report = repo.restore(&first, &latest, false).unwrap();
    assert_eq!(report.kept_user_changes, ["docs", "docs/a.md"]);
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written through it");
    let report = repo.restore(&first, &latest, true).unwrap();
    assert_eq!((report.deleted, report.written), (vec!["docs".into()], vec!["docs/a.md".into()]));
    assert_eq!(setup.read("docs/a.md"), b"a\n");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
}
