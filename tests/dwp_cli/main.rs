//! Black-box tests of `preflight dwp update` and `preflight dwp verify` on plan folders the
//! engine materialised in a temp workspace: each option, each refusal and its exit status
//! (0 done, 1 refused or findings, 2 usage), and concurrent updaters through the lock.

use std::path::Path;
use std::process::{Command, Output};

use preflight_dwp::{Author, PlanFolderWriter};
use preflight_engine::agent::{plan_input, tracked_tasks};
use preflight_engine::planner::{
    build_plan_document, Approval, Plan, PlanFacts, PlanStep, SandboxPolicy, SandboxSpec,
};
use preflight_engine::tasks::TaskList;
use serde_json::Value;
use tempfile::TempDir;

mod evidence;
mod lock;
mod verify;

const PLAN: &str = "PLAN_ship_the_parser";

/// A git workspace holding an approved three-task plan, task 1 in progress.
fn workspace() -> TempDir {
    let ws = tempfile::tempdir().unwrap();
    std::fs::create_dir(ws.path().join(".git")).unwrap();
    let steps = ["parse", "test", "document"];
    let plan = Plan {
        title: "Ship the parser".into(),
        aim: "A parser".into(),
        steps: steps
            .iter()
            .map(|s| PlanStep {
                action: (*s).into(),
                expected: "done".into(),
                ..PlanStep::default()
            })
            .collect(),
        libraries: vec![],
        sandbox: SandboxSpec { policy: SandboxPolicy::Create, notes: String::new() },
        ..Plan::default()
    };
    let facts = PlanFacts {
        workspace: None,
        sandbox_exists: false,
        context7_available: false,
        files: vec![],
        created_at: "2026-06-09T14:00:00Z".into(),
        revision: 1,
        approval: Approval::Approved,
    };
    let document = build_plan_document(&plan, "", &facts);
    let tasks = TaskList::from_steps(steps).unwrap();
    let files = PlanFolderWriter::new(Author::preflight(None));
    let (document, tasks) = (plan_input(&document), tracked_tasks(&tasks));
    let dir =
        files.materialize(ws.path(), &document, &tasks, "chat-1", "2026-06-09T14:00:00Z").unwrap();
    assert_eq!(dir.name(), PLAN);
    ws
}

/// Runs `preflight dwp ARGS…` in `cwd`: (exit code, stdout, stderr).
fn dwp(cwd: &Path, args: &[&str]) -> (i32, String, String) {
    let output: Output = Command::new(env!("CARGO_BIN_EXE_preflight"))
        .arg("dwp")
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).unwrap();
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

fn state(ws: &Path) -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(ws.join(".dwp/plans").join(PLAN).join("state.json")).unwrap(),
    )
    .unwrap()
}

/// The sha256 an update or verify printed last.
fn printed_sha(stdout: &str) -> String {
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("state.json sha256: "))
        .expect("a sha256 line");
    assert_eq!(line.len(), 64, "{line}");
    line.to_owned()
}

#[test]
fn dwp_update_records_gates_and_completes_only_with_passing_evidence() {
    let ws = workspace();
    let cwd = ws.path();
    // (arguments, exit code, text expected on stdout or stderr)
    let table: &[(&[&str], i32, &str)] = &[
        (
            &["update", "ship_the_parser", "--task", "1", "--complete"],
            1,
            "without a gate run attached",
        ),
        (
            &[
                "update",
                "ship_the_parser",
                "--task",
                "1",
                "--complete",
                "--gate",
                "cargo test|101|1 failed",
            ],
            1,
            "fails (exit code 101)",
        ),
        (
            &["update", "ship_the_parser", "--task", "1", "--gate", "cargo test|101|1 failed"],
            0,
            "Task 1 gate `cargo test`: fails (exit 101) — 1 failed.",
        ),
        (
            &["update", PLAN, "--task", "1", "--complete", "--gate", "cargo test|0|never executed"],
            1,
            "not carried out",
        ),
        (
            &["update", PLAN, "--task", "1", "--complete", "--gate", "cargo test|0|12 passed"],
            0,
            "Task 1 completed: parse.",
        ),
        (
            &["update", PLAN, "--task", "1", "--complete", "--gate", "cargo test|0|12 passed"],
            1,
            "already completed",
        ),
        (
            &[
                "update",
                ".dwp/plans/PLAN_ship_the_parser",
                "--task",
                "2",
                "--gate-json",
                r#"{"command":"grep -c x | wc -l","exit_code":0,"evidence":"3 | 3"}"#,
            ],
            0,
            "gate `grep -c x | wc -l`: passes",
        ),
        (
            &[
                "update",
                PLAN,
                "--task",
                "2",
                "--gate-json",
                r#"{"command":"make","exit_code":1,"evidence":"x","passes":true}"#,
            ],
            1,
            "passes:true",
        ),
        (
            &[
                "update",
                PLAN,
                "--task",
                "2",
                "--block-reason",
                "needs a licence",
                "--needs",
                "a licence",
            ],
            0,
            "Task 2 blocked: needs a licence (needs: a licence).",
        ),
        (
            &["update", PLAN, "--task", "3", "--resolve-blocker"],
            1,
            "only the current blocker (task 2)",
        ),
        (&["update", PLAN, "--resolve-blocker"], 0, "Task 2 unblocked"),
        (
            &["update", PLAN, "--task", "3", "--skip-reason", "out of scope"],
            0,
            "Task 3 skipped by the user: out of scope.",
        ),
        (
            &["update", PLAN, "--task", "1", "--reopen-reason", "criterion widened"],
            0,
            "invalidated by the reopen",
        ),
        (
            &["update", PLAN, "--task", "1", "--checkpoint", "step 2", "--note", "half way"],
            0,
            "Checkpoint in task 1 at step 2: half way.",
        ),
        (&["update", "no_such_plan", "--task", "1", "--start"], 1, "not a plan folder"),
    ];
    for (args, code, says) in table {
        let (status, stdout, stderr) = dwp(cwd, args);
        assert_eq!(status, *code, "{args:?}\nstdout: {stdout}\nstderr: {stderr}");
        assert!(
            stdout.contains(says) || stderr.contains(says),
            "{args:?}: {says:?} not in\n{stdout}{stderr}"
        );
        if *code == 0 {
            assert_eq!(printed_sha(&stdout).len(), 64);
        }
    }
    let state = state(cwd);
    let statuses: Vec<&str> =
        state["tasks"].as_array().unwrap().iter().map(|t| t["status"].as_str().unwrap()).collect();
    assert_eq!(statuses, vec!["in_progress", "pending", "skipped"]);
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 0, "{stdout}");
    assert!(
        stdout.contains("README.md and state.json agree (3 tasks, 0 completed); no findings"),
        "{stdout}"
    );
}

#[test]
fn dwp_expected_sha256_refuses_a_write_against_a_changed_state() {
    let ws = workspace();
    let (_, stdout, _) = dwp(ws.path(), &["verify", PLAN]);
    let snapshot = printed_sha(&stdout);
    let (status, stdout, stderr) =
        dwp(ws.path(), &["update", PLAN, "--task", "2", "--start", "--expected-sha256", &snapshot]);
    assert_eq!(status, 0, "{stderr}");
    let after = printed_sha(&stdout);
    let before = std::fs::read(ws.path().join(".dwp/plans").join(PLAN).join("state.json")).unwrap();
    let (status, _, stderr) =
        dwp(ws.path(), &["update", PLAN, "--task", "1", "--start", "--expected-sha256", &snapshot]);
    assert_eq!(status, 1);
    assert!(stderr.contains("changed since it was read") && stderr.contains(&after), "{stderr}");
    assert_eq!(
        std::fs::read(ws.path().join(".dwp/plans").join(PLAN).join("state.json")).unwrap(),
        before
    );
}

#[test]
fn dwp_usage_errors_exit_2_with_the_usage() {
    let ws = workspace();
    let table: &[(&[&str], &str)] = &[
        (&[], "expected `update`, `verify` or `finalize`"),
        (&["update"], "update needs a PLAN"),
        (&["update", PLAN], "name an action"),
        (&["update", PLAN, "--start"], "--start needs --task N"),
        (&["update", PLAN, "--task", "x", "--start"], "--task takes a task number"),
        (&["update", PLAN, "--task", "1", "--start", "--reconcile"], "one action at a time"),
        (
            &["update", PLAN, "--task", "1", "--start", "--gate", "a|0|b"],
            "gate runs go with --complete",
        ),
        (&["update", PLAN, "--task", "1", "--gate", "a|0|b|c"], "use --gate-json"),
        (
            &[
                "update",
                PLAN,
                "--task",
                "1",
                "--gate-json",
                r#"{"command":"a","exit_code":0,"evidence":"b","extra":1}"#,
            ],
            "unknown field",
        ),
        (&["update", PLAN, "--task", "1", "--frobnicate"], "unknown option --frobnicate"),
        (&["update", PLAN, "--task", "1", "--block-reason"], "--block-reason needs a value"),
        (&["verify"], "verify takes one PLAN"),
        (&["verify", PLAN, "extra"], "verify takes one PLAN"),
    ];
    for (args, says) in table {
        let (status, stdout, stderr) = dwp(ws.path(), args);
        assert_eq!(status, 2, "{args:?}: {stderr}");
        assert!(
            stderr.contains(says) && stderr.contains("usage: preflight dwp update"),
            "{args:?}: {stderr}"
        );
        assert!(stdout.is_empty(), "{args:?}: {stdout}");
    }
    let (status, stdout, _) = dwp(ws.path(), &["help"]);
    assert_eq!((status, stdout.contains("--expected-sha256")), (0, true));
}

/// The command line runs no check (seed 002), and records nobody ran again are never the
/// basis of VERIFIED (issue 49): finished work finalised from here is UNVERIFIED, saying why.
#[test]
fn dwp_finalize_is_never_verified_on_records_alone() {
    let ws = workspace();
    let cwd = ws.path();
    let (status, stdout, _) = dwp(cwd, &["finalize", PLAN]);
    assert_eq!(status, 1, "{stdout}");
    assert!(stdout.contains("UNVERIFIED") && stdout.contains("task 1"), "{stdout}");
    for task in ["1", "2", "3"] {
        let gate = format!("cargo test|0|{task}2 passed");
        let args = ["update", PLAN, "--task", task, "--complete", "--gate", gate.as_str()];
        let (status, _, stderr) = dwp(cwd, &args);
        assert_eq!(status, 0, "{stderr}");
    }
    let (status, stdout, stderr) = dwp(cwd, &["finalize", PLAN]);
    assert_eq!(status, 1, "{stdout}{stderr}");
    assert!(stdout.contains(&format!("{PLAN}: UNVERIFIED")), "{stdout}");
    assert!(stdout.contains("its gate `cargo test` was not run again"), "{stdout}");
    assert!(stdout.contains("this command runs none"), "{stdout}");
    let folder = cwd.join(".dwp/plans").join(PLAN);
    let attestation = folder.join("analysis_results/FINALIZATION.json");
    let attestation: Value =
        serde_json::from_str(&std::fs::read_to_string(attestation).unwrap()).unwrap();
    assert_eq!(attestation["verdict"], "UNVERIFIED", "{attestation:#}");
    assert_eq!(attestation["tasks"][0]["gates"][0]["rerun"], Value::Null, "{attestation:#}");
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("state.json")).unwrap()).unwrap();
    assert_eq!(state["status"], "in_progress", "finished, not verified: {state:#}");
    assert_eq!(state["verification"]["verdict"], "UNVERIFIED", "{state:#}");
    assert!(!folder.join(".finalizing.json").exists());
    let (status, stdout, _) = dwp(cwd, &["verify", PLAN]);
    assert_eq!(status, 0, "verify is clean after the finalisation: {stdout}");
}
