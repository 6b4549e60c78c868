//! Property tests of the guarded updater's refusals: long random sequences of transitions
//! (valid and not) on random plans, checking after every step the rules of seed 002 —
//! nothing completed without live passing evidence, `skipped` only by the user's skip,
//! only the current blocker resolved, a refusal changes nothing (on disk: not a byte), a
//! write against a stale SHA-256 is always refused, and README.md and `state.json` agree.

use std::collections::HashMap;

use proptest::prelude::*;

use super::support::*;
use super::{
    admits_not_run, apply, at, completion_allowed, derived_problems, read_state, state_problems,
    verify_plan, ApprovalState, Author, Change, DwpError, GateInput, LockOptions, Materialization,
    Outcome, PlanFormat, PlanState, Status, TaskEntry, UpdateAction, UpdateRequest, STATE_SCHEMA,
};

fn gate_input() -> impl Strategy<Value = GateInput> {
    let command = prop::sample::select(vec!["make", "make test", "cargo clippy"]);
    let evidence = prop::sample::select(vec![
        "12 passed",
        "",
        "tests not run",
        "never executed: no device",
        "3 failed",
    ]);
    (command, prop::sample::select(vec![0i64, 0, 1, 2]), evidence)
        .prop_map(|(c, x, e)| GateInput::new(c, x, e))
}

fn text() -> impl Strategy<Value = String> {
    prop::sample::select(vec![
        "".to_owned(),
        "  ".to_owned(),
        "a reason".to_owned(),
        "x".repeat(201),
    ])
}

fn change() -> impl Strategy<Value = Change> {
    let task = 0u32..8;
    prop_oneof![
        task.clone().prop_map(|task| Change::Start { task }),
        (task.clone(), prop::collection::vec(gate_input(), 0..3))
            .prop_map(|(task, gates)| Change::RecordGates { task, gates }),
        (task.clone(), prop::collection::vec(gate_input(), 0..3), any::<bool>()).prop_map(
            |(task, gates, with_outcome)| {
                let outcome = with_outcome
                    .then(|| Outcome { worked: Some("it works".into()), ..Outcome::default() });
                Change::Complete { task, gates, outcome, commit: None }
            }
        ),
        (task.clone(), text()).prop_map(|(task, reason)| Change::Block {
            task,
            reason,
            needs: String::new()
        }),
        task.clone().prop_map(|task| Change::ResolveBlocker { task }),
        (task.clone(), text()).prop_map(|(task, reason)| Change::Reopen { task, reason }),
        (task.clone(), text()).prop_map(|(task, reason)| Change::Skip { task, reason }),
        (task.clone(), text()).prop_map(|(task, reason)| Change::Retire { task, reason }),
        (task.clone(), text()).prop_map(|(task, step)| Change::Checkpoint {
            task,
            step,
            note: "n".into()
        }),
        (task, text()).prop_map(|(id, title)| Change::AddTask { id, title, phase: None }),
    ]
}

fn author() -> Author {
    Author::preflight(None)
}

/// A refusal the rules demand, whatever the implementation thinks.
fn must_refuse(state: &PlanState, change: &Change) -> Option<&'static str> {
    let status = |id: u32| state.task(id).map(|t| t.status);
    let bad_gate = |g: &GateInput| {
        g.exit_code != 0 || g.evidence.trim().is_empty() || admits_not_run(&g.evidence).is_some()
    };
    let gates = match change {
        Change::Complete { gates, .. } | Change::RecordGates { gates, .. } => gates.as_slice(),
        _ => &[],
    };
    let denies = |g: &GateInput| {
        g.exit_code == 0 && !g.evidence.trim().is_empty() && admits_not_run(&g.evidence).is_some()
    };
    if gates.iter().any(denies) {
        return Some("a passing run whose evidence denies the run");
    }
    if gates.iter().enumerate().any(|(i, g)| gates[..i].iter().any(|e| e.command == g.command)) {
        return Some("the same command twice");
    }
    match change {
        Change::AddTask { .. } => None,
        c if status(task_of(c)).is_none() => Some("unknown task"),
        Change::Complete { gates, .. } if gates.is_empty() => {
            Some("completion without an attached gate")
        }
        Change::Complete { gates, .. } if gates.iter().any(bad_gate) => {
            Some("completion with a failing or empty gate")
        }
        Change::Complete { task, .. } | Change::Start { task }
            if status(*task) == Some(Status::Skipped) =>
        {
            Some("skipped")
        }
        Change::ResolveBlocker { task }
            if state.blocked.as_ref().map(|b| b.task) != Some(*task) =>
        {
            Some("not the current blocker")
        }
        _ => None,
    }
}

fn task_of(change: &Change) -> u32 {
    match change {
        Change::AddTask { id, .. } => *id,
        Change::Start { task }
        | Change::RecordGates { task, .. }
        | Change::Complete { task, .. }
        | Change::Block { task, .. }
        | Change::ResolveBlocker { task }
        | Change::Reopen { task, .. }
        | Change::Restore { task, .. }
        | Change::Skip { task, .. }
        | Change::Retire { task, .. }
        | Change::Pause { task, .. }
        | Change::Checkpoint { task, .. } => *task,
        Change::Amend(amendment) => amendment.tasks[0],
    }
}

/// The rules every state the updater produces must keep.
fn check_invariants(before: &PlanState, change: &Change, after: &PlanState, log: &[String]) {
    assert_eq!(state_problems(after), Vec::<String>::new(), "after {change:?}");
    assert_eq!(derived_problems(after), Vec::<String>::new(), "after {change:?}");
    let in_progress = after.tasks.iter().filter(|t| t.status == Status::InProgress).count();
    assert!(in_progress <= 1, "{in_progress} tasks in progress after {change:?}");
    for task in &after.tasks {
        if task.status == Status::Completed {
            assert_eq!(
                completion_allowed(task),
                Ok(()),
                "task {} completed without evidence after {change:?}",
                task.id
            );
            assert!(task.completed_at.is_some());
        }
        let was = before.task(task.id).map(|t| t.status);
        if task.status == Status::Skipped && was != Some(Status::Skipped) {
            assert!(
                matches!(change, Change::Skip { task: t, .. } | Change::Retire { task: t, .. } if *t == task.id),
                "skipped by {change:?}"
            );
        }
    }
    if after.status == Status::Completed {
        let done = |t: &&TaskEntry| t.status == Status::Completed;
        assert!(
            after.tasks.iter().all(|t| matches!(t.status, Status::Completed | Status::Skipped)),
            "open work in a completed plan"
        );
        assert!(after.tasks.iter().any(|t| done(&t)), "skipped work alone made the plan completed");
    }
    if let Change::Reopen { task, .. } = change {
        assert!(
            log[0].starts_with(&format!("Task {task} reopened")),
            "the reopen is logged first: {log:?}"
        );
        assert!(after.task(*task).unwrap().gates.iter().all(|g| g.invalidated.is_some()));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn dwp_transitions_keep_the_seeds_rules(size in 1usize..6, changes in prop::collection::vec(change(), 1..40)) {
        let titles: Vec<String> = (1..=size).map(|n| format!("task {n}")).collect();
        let mut state = tiny_plan(&titles);
        for (minute, change) in (1..).zip(&changes) {
            let demanded = must_refuse(&state, change);
            // A refusal returns the old state untouched (it is borrowed); only what is
            // accepted needs checking.
            if let Ok(applied) = apply(&state, change, &at(minute), &author()) {
                prop_assert!(demanded.is_none(), "accepted ({:?}) {change:?}", demanded);
                check_invariants(&state, change, &applied.state, &applied.log);
                state = applied.state;
            }
        }
    }
}

/// A ready Lite plan of pending tasks, as materialisation writes it before syncing
/// task 1's start (built in memory: this property is about the pure transitions).
fn tiny_plan(titles: &[String]) -> PlanState {
    let tasks =
        titles.iter().zip(1..).map(|(title, id)| TaskEntry::pending(id, title.clone(), None));
    let mut state = PlanState {
        schema: STATE_SCHEMA.to_owned(),
        plan: "PLAN_tiny".to_owned(),
        updated_at: at(0),
        updated_by: None,
        status: Status::Pending,
        completed_count: 0,
        task_count: 0,
        format: PlanFormat::Lite,
        materialization: Materialization::Ready,
        approval: Some(ApprovalState::Approved),
        promotion: None,
        tasks: tasks.collect(),
        checkpoint: None,
        blocked: None,
        amendments: Vec::new(),
        verification: None,
        withdrawn_verifications: Vec::new(),
        superseded: None,
        extra: Default::default(),
    };
    state.refresh_derived();
    assert_eq!(state_problems(&state), Vec::<String>::new());
    state
}

/// Which snapshot a write is made against.
#[derive(Debug, Clone, Copy)]
enum Snapshot {
    None,
    Current,
    Stale,
    Garbage,
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn dwp_refused_updates_leave_every_file_as_it_was(
        steps in prop::collection::vec((change(), prop::sample::select(vec![Snapshot::None, Snapshot::Current, Snapshot::Stale, Snapshot::Garbage])), 1..25)
    ) {
        let ws = workspace(true);
        let (dir, _) = materialised(ws.path());
        let files = plan_files();
        let mut previous_sha = String::from("0").repeat(64);
        for (minute, (change, snapshot)) in (1..).zip(steps) {
            let before = read_all(dir.path());
            let current = read_state(&dir).unwrap().sha256;
            let expected = match snapshot {
                Snapshot::None => None,
                Snapshot::Current => Some(current.clone()),
                Snapshot::Stale => Some(previous_sha.clone()),
                Snapshot::Garbage => Some("f00d".to_owned()),
            };
            let stale = expected.as_ref().is_some_and(|sha| *sha != current);
            let request = UpdateRequest { action: UpdateAction::Change(change.clone()), expected_sha256: expected, break_stale_lock: false };
            match files.update(&dir, &request, &at(minute)) {
                Ok(report) => {
                    prop_assert!(!stale, "a write against a changed state was accepted: {change:?}");
                    prop_assert_eq!(report.sha256, read_state(&dir).unwrap().sha256);
                    previous_sha = current;
                }
                Err(error) => {
                    if stale {
                        prop_assert!(matches!(error, DwpError::StateChanged { .. }), "{}", error);
                    }
                    prop_assert_eq!(read_all(dir.path()), before, "refused ({}) but files changed", error);
                }
            }
            let report = verify_plan(&dir, LockOptions::default()).unwrap();
            prop_assert!(report.findings.is_empty(), "{:#?}", report.findings);
        }
    }
}

fn read_all(dir: &std::path::Path) -> HashMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap())
        .filter(|entry| entry.file_type().unwrap().is_file())
        .map(|entry| {
            (entry.file_name().into_string().unwrap(), std::fs::read(entry.path()).unwrap())
        })
        .collect()
}
