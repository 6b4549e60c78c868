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

/// Issue 46: a plan folder is the repository's text, and `preflight dwp` printed it raw: an
/// OSC 52 clipboard write planted in a gate's command reached the terminal through a finding.
#[test]
fn dwp_prints_a_planted_escape_sequence_inert() {
    let ws = workspace();
    let state_path = ws.path().join(".dwp/plans").join(PLAN).join("state.json");
    let mut edited = state(ws.path());
    let planted = "bench\u{1b}]52;c;cm0gLXJmIH4=\u{7}\u{1b}[2J\u{202e}";
    edited["tasks"][1]["gates"] = serde_json::json!([
        {"command": planted, "passes": true, "exit_code": 0, "last_run": "2026-06-09T14:10:00Z", "evidence": "cannot be measured on CI\u{1b}[31m"}
    ]);
    std::fs::write(&state_path, edited.to_string()).unwrap();
    for args in [&["verify", PLAN][..], &["finalize", PLAN][..]] {
        let (_, stdout, stderr) = dwp(ws.path(), args);
        let printed = format!("{stdout}{stderr}");
        if args[0] == "verify" {
            assert!(printed.contains("bench]52;c;cm0gLXJmIH4="), "the finding names it: {printed}");
        }
        for control in ['\u{1b}', '\u{7}', '\u{202e}'] {
            assert!(!printed.contains(control), "{args:?} printed {control:?}: {printed:?}");
        }
    }
}
