//! Seed 002's evidence states on the command line: a deferred requirement, a completed
//! investigation closed by the amendment naming it, and a reopen recorded as an amendment.

use super::{dwp, state, workspace, PLAN};

fn run(cwd: &std::path::Path, args: &[&str]) -> String {
    let (status, stdout, stderr) = dwp(cwd, args);
    assert_eq!(status, 0, "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
    stdout
}

fn update(cwd: &std::path::Path, task: &str, action: &[&str]) -> String {
    let mut args = vec!["update", PLAN, "--task", task];
    args.extend_from_slice(action);
    run(cwd, &args)
}

#[test]
fn dwp_update_defers_a_requirement_closed_by_its_amendment_alone() {
    let ws = workspace();
    let cwd = ws.path();
    let said = update(cwd, "2", &["--defer-reason", "tests come with the docs", "--defer-to", "3"]);
    assert!(said.contains("task 2's criterion deferred to task 3"), "{said}");
    let state = state(cwd);
    assert_eq!(state["tasks"][1]["status"], "skipped");
    let record = &state["amendments"][0];
    assert_eq!(
        (&record["kind"], &record["target"], &record["authority"]),
        (&"defer".into(), &3.into(), &"user".into())
    );
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 0, "{stdout}");
    let task3 =
        std::fs::read_to_string(cwd.join(".dwp/plans").join(PLAN).join("3.task_document.md"))
            .unwrap();
    assert!(task3.contains("deferred to task 3"), "the target's log names the deferral: {task3}");

    // Dropping the target leaves the deferred criterion unmet: verify and finalize say so.
    update(cwd, "3", &["--skip-reason", "no time"]);
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    let never_met = "[evidence] task 2: its criterion was deferred to task 3, which is skipped";
    assert!(stdout.contains(never_met), "{stdout}");
    let (status, stdout, _) = dwp(cwd, &["finalize", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    let unverified = stdout.contains("UNVERIFIED");
    assert!(unverified && stdout.contains("the deferred criterion is never met"), "{stdout}");
}

#[test]
fn dwp_update_closes_a_task_by_its_investigation_only_through_the_amendment() {
    let ws = workspace();
    let cwd = ws.path();
    let findings = "the grammar is LL(1); no parser generator needed";
    let said = update(cwd, "1", &["--investigation", findings]);
    assert!(said.contains("Task 1 investigation recorded"), "{said}");
    assert_eq!(state(cwd)["tasks"][0]["status"], "in_progress", "it closes nothing by itself");
    let said = update(cwd, "1", &["--close-by-investigation", "the finding was the deliverable"]);
    assert!(said.contains("criterion becomes its investigation of"), "{said}");
    let state = state(cwd);
    assert_eq!(state["tasks"][0]["status"], "completed");
    let record = &state["amendments"][0];
    assert_eq!((&record["kind"], &record["authority"]), (&"investigation".into(), &"user".into()));
    assert_eq!(record["investigation"], state["tasks"][0]["investigation"]["at"]);
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 0, "{stdout}");
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
