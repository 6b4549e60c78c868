//! `preflight dwp verify`: each disagreement with its direction, contradicting records,
//! and `--reconcile` letting Markdown win.

use super::{dwp, state, workspace, PLAN};

#[test]
fn dwp_verify_reports_each_disagreement_and_reconcile_lets_markdown_win() {
    let ws = workspace();
    let readme_path = ws.path().join(".dwp/plans").join(PLAN).join("README.md");
    let (status, _, _) =
        dwp(ws.path(), &["update", PLAN, "--task", "1", "--complete", "--gate", "make|0|ok"]);
    assert_eq!(status, 0);
    let readme = std::fs::read_to_string(&readme_path).unwrap();
    let edited =
        readme.replace("- [x] **1.**", "- [ ] **1.**").replace("- [ ] **3.**", "- [x] **3.**");
    std::fs::write(&readme_path, &edited).unwrap();
    let (status, stdout, _) = dwp(ws.path(), &["verify", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    assert!(
        stdout.contains("[state_ahead] task 1: state.json says completed, README.md shows [ ]"),
        "{stdout}"
    );
    assert!(
        stdout.contains("[readme_ahead] task 3: README.md shows [x], state.json says pending"),
        "{stdout}"
    );
    assert!(stdout.contains(&format!("{PLAN}: 2 findings")), "{stdout}");

    let (status, _, stderr) = dwp(ws.path(), &["update", PLAN, "--task", "2", "--start"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains("disagree (Markdown wins)"),
        "no write from a state the README contradicts: {stderr}"
    );
    let (status, _, stderr) = dwp(ws.path(), &["update", PLAN, "--reconcile"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains("README.md shows task 3 checked but it has no passing gate run"),
        "{stderr}"
    );

    std::fs::write(&readme_path, edited.replace("- [x] **3.**", "- [ ] **3.**")).unwrap();
    let (status, stdout, stderr) = dwp(ws.path(), &["update", PLAN, "--reconcile"]);
    assert_eq!(status, 0, "{stderr}");
    assert!(stdout.contains("Reconciled state.json with README.md (Markdown wins)."), "{stdout}");
    assert_eq!(state(ws.path())["tasks"][0]["status"], "in_progress");
    let (status, stdout, _) = dwp(ws.path(), &["verify", PLAN]);
    assert_eq!(status, 0, "{stdout}");
}

#[test]
fn dwp_verify_reports_contradicting_records() {
    let ws = workspace();
    let state_path = ws.path().join(".dwp/plans").join(PLAN).join("state.json");
    let mut edited = state(ws.path());
    edited["tasks"][1]["gates"] = serde_json::json!([
        {"command": "bench", "passes": true, "exit_code": 0, "last_run": "2026-06-09T14:10:00Z", "evidence": "cannot be measured on CI"}
    ]);
    std::fs::write(&state_path, edited.to_string()).unwrap();
    let (status, stdout, _) = dwp(ws.path(), &["verify", PLAN]);
    assert_eq!(status, 1);
    assert!(stdout.contains("[contradiction] task 2: gate `bench` is a passing record whose evidence says the check never ran"), "{stdout}");
}
