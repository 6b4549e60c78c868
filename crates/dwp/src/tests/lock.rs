//! Concurrent updaters through the `.lock` folder: threads of one process and separate
//! processes each record their own gate runs on the same task; every update is a
//! read-modify-write, so a single lost update would show as a missing record. And the
//! optimistic guard: of two writers holding the same snapshot, exactly one gets through.
//!
//! The separate processes run `crates/testkit/src/bin/dwp-lock-child.rs`, located (and
//! built when missing or stale) by `preflight_testkit::child_binary`, as `crash.rs` explains.

use std::path::Path;
use std::process::{Command, Stdio};

use super::support::*;
use super::{
    at, read_state, verify_plan, Change, DwpError, GateInput, LockOptions, PlanFolder,
    UpdateAction, UpdateRequest,
};

const UPDATES: usize = 12;

/// Writer `name` records `UPDATES` gate runs of its own commands on task 1.
fn write_gates(dir: &PlanFolder, name: &str) {
    let files = plan_files();
    for n in 0..UPDATES {
        let gates = vec![GateInput::new(&format!("check {name}-{n}"), 0, "ok")];
        let request = UpdateRequest {
            action: UpdateAction::Change(Change::RecordGates { task: 1, gates }),
            expected_sha256: None,
            break_stale_lock: false,
        };
        files
            .update(dir, &request, &crate::now_rfc3339())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
}

fn assert_all_recorded(dir: &PlanFolder, writers: usize) {
    let state = read_state(dir).unwrap().state;
    assert_eq!(state.tasks[0].gates.len(), writers * UPDATES, "lost updates");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert_eq!(progress.matches("gate `check ").count(), writers * UPDATES, "lost log entries");
    let report = verify_plan(dir, LockOptions::default()).unwrap();
    assert!(report.findings.is_empty(), "{:#?}", report.findings);
    assert!(!dir.path().join(".lock").exists(), "the lock is released");
}

#[test]
fn dwp_threads_serialise_through_the_lock() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let dir = &dir;
            scope.spawn(move || write_gates(dir, &format!("thread{writer}")));
        }
    });
    assert_all_recorded(&dir, 4);
}

#[test]
fn dwp_processes_serialise_through_the_lock() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    let children: Vec<_> =
        (0..3).map(|writer| spawn_writer(dir.path(), &format!("process{writer}"))).collect();
    for child in children {
        let output = child.wait_with_output().unwrap();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    }
    assert_all_recorded(&dir, 3);
}

fn spawn_writer(plan: &Path, name: &str) -> std::process::Child {
    Command::new(preflight_testkit::child_binary("dwp-lock-child"))
        .arg(plan)
        .arg(name)
        .arg(UPDATES.to_string())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn a writer")
}

#[test]
fn dwp_of_two_writers_with_one_snapshot_exactly_one_writes() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    let snapshot = read_state(&dir).unwrap().sha256;
    let results: Vec<Result<_, DwpError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..2)
            .map(|writer| {
                let (dir, snapshot) = (&dir, snapshot.clone());
                scope.spawn(move || {
                    let gates = vec![GateInput::new(&format!("writer {writer}"), 0, "ok")];
                    let change = Change::RecordGates { task: 1, gates };
                    let request = UpdateRequest {
                        action: UpdateAction::Change(change),
                        expected_sha256: Some(snapshot),
                        break_stale_lock: false,
                    };
                    plan_files().update(dir, &request, &at(5))
                })
            })
            .collect();
        handles.into_iter().map(|handle| handle.join().unwrap()).collect()
    });
    let written = results.iter().filter(|result| result.is_ok()).count();
    assert_eq!(written, 1, "{results:?}");
    assert!(
        results.iter().any(|result| matches!(result, Err(DwpError::StateChanged { .. }))),
        "{results:?}"
    );
}
