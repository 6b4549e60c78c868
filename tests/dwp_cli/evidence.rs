//! Seed 002's evidence states on the command line: a deferred requirement, a completed
//! investigation closed by the amendment naming it, and a reopen recorded as an amendment.

use super::{dwp, state, workspace, PLAN};

fn run(cwd: &std::path::Path, args: &[&str]) -> String {
    let (status, stdout, stderr) = dwp(cwd, args);
    assert_eq!(status, 0, "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
    stdout
}

#[test]
fn dwp_update_defers_a_requirement_and_closes_a_task_by_its_investigation() {
    let ws = workspace();
    let cwd = ws.path();
    let said = run(
        cwd,
        &[
            "update",
            PLAN,
            "--task",
            "2",
            "--defer-reason",
            "tests come with the docs",
            "--defer-to",
            "3",
        ],
    );
    assert!(said.contains("task 2's criterion deferred to task 3"), "{said}");
    let said = run(
        cwd,
        &[
            "update",
            PLAN,
            "--task",
            "1",
            "--investigation",
            "the grammar is LL(1); no parser generator needed",
        ],
    );
    assert!(said.contains("Task 1 investigation recorded"), "{said}");
    let said = run(
        cwd,
        &[
            "update",
            PLAN,
            "--task",
            "1",
            "--close-by-investigation",
            "the user asked for the finding, not the code",
        ],
    );
    assert!(said.contains("criterion becomes its investigation of"), "{said}");
    let state = state(cwd);
    let statuses: Vec<&str> =
        state["tasks"].as_array().unwrap().iter().map(|t| t["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["completed", "skipped", "pending"]);
    let kinds: Vec<(&str, &serde_json::Value)> = state["amendments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["kind"].as_str().unwrap(), &a["authority"]))
        .collect();
    assert_eq!(
        kinds,
        vec![("defer", &serde_json::json!("user")), ("investigation", &serde_json::json!("user"))]
    );
    assert_eq!(state["amendments"][0]["target"], 3);
    assert_eq!(state["amendments"][1]["investigation"], state["tasks"][0]["investigation"]["at"]);
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 0, "{stdout}");
    let task3 =
        std::fs::read_to_string(cwd.join(".dwp/plans").join(PLAN).join("3.task_document.md"))
            .unwrap();
    assert!(
        task3.contains("deferred to task 3"),
        "the target's own log names the deferral: {task3}"
    );

    // Dropping the target leaves the deferred criterion unmet: verify says so.
    run(cwd, &["update", PLAN, "--task", "3", "--skip-reason", "no time"]);
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    assert!(
        stdout
            .contains("[evidence] task 2: its criterion was deferred to task 3, which is skipped"),
        "{stdout}"
    );
    let (status, stdout, _) = dwp(cwd, &["finalize", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    assert!(
        stdout.contains("UNVERIFIED") && stdout.contains("the deferred criterion is never met"),
        "{stdout}"
    );
}

#[test]
fn dwp_update_refuses_what_the_evidence_states_do_not_allow() {
    let ws = workspace();
    let cwd = ws.path();
    let table: &[(&[&str], i32, &str)] = &[
        (
            &["update", PLAN, "--task", "1", "--close-by-investigation", "x"],
            1,
            "no investigation on record",
        ),
        (
            &["update", PLAN, "--task", "2", "--defer-reason", "x", "--defer-to", "2"],
            1,
            "cannot take its own criterion",
        ),
        (
            &["update", PLAN, "--task", "2", "--defer-reason", "x"],
            2,
            "--defer-reason needs --defer-to M",
        ),
        (
            &["update", PLAN, "--task", "2", "--start", "--defer-to", "3"],
            2,
            "--defer-to goes with --defer-reason",
        ),
        (
            &["update", PLAN, "--task", "1", "--reopen-reason", "x"],
            1,
            "only a completed, blocked or skipped task can be reopened",
        ),
    ];
    let before = state(cwd);
    for (args, code, says) in table {
        let (status, stdout, stderr) = dwp(cwd, args);
        assert_eq!(status, *code, "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {says:?} not in {stderr}");
    }
    assert_eq!(state(cwd), before, "a refusal writes nothing");
}

#[test]
fn dwp_a_reopen_with_a_reason_writes_its_amendment_first() {
    let ws = workspace();
    let cwd = ws.path();
    run(cwd, &["update", PLAN, "--task", "1", "--complete", "--gate", "make|0|12 passed"]);
    let said = run(cwd, &["update", PLAN, "--task", "1", "--reopen-reason", "criterion widened"]);
    let lines: Vec<&str> = said.lines().collect();
    assert!(lines[0].contains("Amendment 1: task 1 reopened to be refined"), "{said}");
    assert!(lines[0].contains("evidence: task 1: `make` invalidated by the reopen"), "{said}");
    let state = state(cwd);
    let record = &state["amendments"][0];
    assert_eq!(
        (record["kind"].as_str(), record["observed"].as_str()),
        (Some("reopen"), Some("criterion widened"))
    );
    assert_eq!(record["original"], serde_json::json!(["parse"]));
    let log =
        std::fs::read_to_string(cwd.join(".dwp/plans").join(PLAN).join("1.task_parse.md")).unwrap();
    assert!(log.contains("- Amendment 1 ("), "the task's log has the amendment: {log}");
    assert!(log.contains("invalidated: reopened at"), "and the evidence it invalidated: {log}");
}
