//! The child of the plan-files crash test (`crates/dwp/src/tests/crash.rs`): runs guarded
//! updates on the plan folder given as its argument, round after round over every task,
//! until it is killed, printing `step <PROGRESS entries>` after each update it wrote.
//! Refusals (e.g. a reopen of an open task) are part of the workload and write nothing.

use std::io::Write;

use preflight_dwp::{
    read_state, Author, Change, GateInput, LockOptions, PlanFolder, PlanFolderWriter, UpdateAction,
    UpdateRequest,
};

/// One round of protocol points on task `t`.
fn round(t: u32, r: u64) -> Vec<Change> {
    let gate = |exit_code, evidence: &str| vec![GateInput::new("make test", exit_code, evidence)];
    vec![
        Change::Reopen { task: t, reason: format!("round {r}") },
        Change::Start { task: t },
        Change::Checkpoint { task: t, step: format!("round {r}"), note: "half way".into() },
        Change::RecordGates { task: t, gates: gate(1, "2 failed") },
        Change::Complete { task: t, gates: gate(0, "12 passed"), outcome: None, commit: None },
        Change::Reopen { task: t, reason: "widened".into() },
        Change::Block { task: t, reason: "waiting for review".into(), needs: "a reviewer".into() },
        Change::ResolveBlocker { task: t },
        Change::Complete { task: t, gates: gate(0, "13 passed"), outcome: None, commit: None },
    ]
}

fn main() {
    let plan = std::env::args().nth(1).expect("usage: dwp-crash-child PLAN_FOLDER");
    let dir = PlanFolder::open(plan).expect("a plan folder");
    let files =
        PlanFolderWriter::new(Author::preflight(Some("test-model"))).with_lock(LockOptions {
            wait: std::time::Duration::from_secs(30),
            stale_after: std::time::Duration::from_secs(120),
        });
    let tasks = read_state(&dir).expect("state.json").state.tasks.len() as u64;
    let progress = std::fs::read_to_string(dir.path().join("PROGRESS.md")).expect("PROGRESS.md");
    let mut entries = progress.lines().filter(|line| line.starts_with("- ")).count();
    let mut out = std::io::stdout().lock();
    for r in 0.. {
        for change in round(1 + (r % tasks) as u32, r) {
            let request = UpdateRequest {
                action: UpdateAction::Change(change),
                expected_sha256: None,
                break_stale_lock: false,
            };
            if let Ok(report) = files.update(&dir, &request, &preflight_dwp::now_rfc3339()) {
                entries += report.log.len();
                writeln!(out, "step {entries}").expect("report");
                out.flush().expect("report");
            }
        }
    }
}
