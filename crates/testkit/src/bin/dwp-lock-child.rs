//! A writer of the lock test (`crates/dwp/src/tests/lock.rs`): `dwp-lock-child PLAN NAME N`
//! records N gate runs of its own commands (`check NAME-<n>`) on task 1 of the plan folder,
//! one guarded update each, and exits non-zero on the first that fails.

use std::time::Duration;

use preflight_dwp::{
    Author, Change, GateInput, LockOptions, PlanFolder, PlanFolderWriter, UpdateAction,
    UpdateRequest,
};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [plan, name, updates] = args.as_slice() else {
        panic!("usage: dwp-lock-child PLAN_FOLDER NAME UPDATES");
    };
    let updates: usize = updates.parse().expect("UPDATES is a number");
    let dir = PlanFolder::open(plan).expect("a plan folder");
    let files =
        PlanFolderWriter::new(Author::preflight(Some("test-model"))).with_lock(LockOptions {
            wait: Duration::from_secs(30),
            stale_after: Duration::from_secs(120),
        });
    for n in 0..updates {
        let gates = vec![GateInput::new(&format!("check {name}-{n}"), 0, "ok")];
        let request = UpdateRequest {
            action: UpdateAction::Change(Change::RecordGates { task: 1, gates }),
            expected_sha256: None,
            break_stale_lock: false,
        };
        files
            .update(&dir, &request, &preflight_dwp::now_rfc3339())
            .unwrap_or_else(|error| panic!("{name}: {error}"));
    }
}
