//! Scripted sessions of the updater's transitions, each step shown as the statuses it
//! leaves or the refusal it gets (a refusal leaves the state as it was).

use expect_test::{expect, Expect};

use super::{apply, Change, Outcome, PlanState, Status};
use super::{at, by, fail, pass, plan, summary};

fn run(mut state: PlanState, steps: &[Change], expected: Expect) {
    let mut shown = String::new();
    for (minute, change) in (1..).zip(steps) {
        match apply(&state, change, &at(minute), &by()) {
            Ok(applied) => {
                state = applied.state;
                shown += &format!("{:<16} {}\n", change.point(), summary(&state));
                for line in applied.log {
                    shown += &format!("    log: {line}\n");
                }
            }
            Err(refusal) => shown += &format!("{:<16} refused: {refusal}\n", change.point()),
        }
    }
    expected.assert_eq(&shown);
}

fn complete(task: u32, gates: Vec<super::GateInput>) -> Change {
    Change::Complete { task, gates, outcome: None, commit: None }
}

#[test]
fn completion_needs_an_attached_passing_gate() {
    run(
        plan(&["write the parser", "document it"]),
        &[
            Change::Start { task: 1 },
            complete(1, vec![]),
            complete(1, vec![fail("cargo test")]),
            Change::RecordGates { task: 1, gates: vec![fail("cargo test")] },
            complete(1, vec![pass("cargo clippy")]),
            complete(1, vec![pass("cargo test")]),
            complete(1, vec![pass("cargo test")]),
            Change::RecordGates { task: 1, gates: vec![fail("cargo clippy")] },
        ],
        expect![[r#"
            task start       1:in_progress 2:pending | plan in_progress
                log: Task 1 started: write the parser.
            completion       refused: task 1 cannot be completed without a gate run attached: run its check and pass the result (--gate or --gate-json)
            completion       refused: task 1 cannot be completed: gate `cargo test` fails (exit code 1) and has no later passing run; fix it and run the check again
            gate run         1:in_progress 2:pending | plan in_progress
                log: Task 1 gate `cargo test`: fails (exit 1) — 2 failed.
            completion       refused: task 1 cannot be completed: gate `cargo test` fails (exit code 1) and has no later passing run; fix it and run the check again
            completion       1:completed 2:pending | plan in_progress
                log: Task 1 gate `cargo test`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: write the parser.
            completion       refused: task 1 is already completed; reopen it with a reason first
            gate run         1:in_progress 2:pending | plan in_progress
                log: Task 1 gate `cargo clippy`: fails (exit 1) — 2 failed.
                log: Task 1 is no longer completed: task 1 cannot be completed: gate `cargo clippy` fails (exit code 1) and has no later passing run; fix it and run the check again.
        "#]],
    );
}

#[test]
fn evidence_must_say_the_check_ran() {
    let never = super::GateInput::new("bench", 0, "never executed: no GPU here");
    let empty = super::GateInput::new("bench", 0, "");
    run(
        plan(&["measure"]),
        &[complete(1, vec![never]), complete(1, vec![empty]), complete(1, vec![pass("bench")])],
        expect![[r#"
            completion       refused: gate `bench` exits 0 but its evidence says the check was not carried out ("never executed"): run the check, or record the run that did not happen with a non-zero exit code
            completion       refused: task 1 cannot be completed: gate `bench` has no evidence; record a short summary of what the check showed
            completion       1:completed | plan in_progress
                log: Task 1 gate `bench`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: measure.
        "#]],
    );
}

#[test]
fn only_the_current_blocker_is_resolved() {
    run(
        plan(&["a", "b", "c"]),
        &[
            Change::Start { task: 1 },
            Change::Block { task: 1, reason: "needs an API key".into(), needs: "a key".into() },
            Change::Start { task: 2 },
            Change::Block { task: 2, reason: "the server is down".into(), needs: String::new() },
            Change::ResolveBlocker { task: 1 },
            Change::ResolveBlocker { task: 3 },
            Change::ResolveBlocker { task: 2 },
            Change::Start { task: 1 },
            Change::ResolveBlocker { task: 1 },
        ],
        expect![[r#"
            task start       1:in_progress 2:pending 3:pending | plan in_progress
                log: Task 1 started: a.
            blocked          1:blocked 2:pending 3:pending | plan blocked blocked:1
                log: Task 1 blocked: needs an API key (needs: a key).
            task start       1:blocked 2:in_progress 3:pending | plan blocked blocked:1
                log: Task 2 started: b.
            blocked          1:blocked 2:blocked 3:pending | plan blocked blocked:2
                log: Task 2 blocked: the server is down.
            blocker resolved refused: task 1 is not the current task: only the current blocker (task 2) can be resolved
            blocker resolved refused: task 3 is not the current task: only the current blocker (task 2) can be resolved
            blocker resolved 1:blocked 2:in_progress 3:pending | plan blocked blocked:1
                log: Task 2 unblocked (was: the server is down).
            task start       refused: task 1 is blocked; resolve its blocker first
            blocker resolved 1:in_progress 2:pending 3:pending | plan in_progress
                log: Task 1 unblocked (was: needs an API key).
                log: Task 2 paused.
        "#]],
    );
}

#[test]
fn a_reopen_logs_and_invalidates_the_evidence_first() {
    run(
        plan(&["a", "b"]),
        &[
            Change::Reopen { task: 1, reason: "scope changed".into() },
            complete(1, vec![pass("make")]),
            Change::Start { task: 1 },
            Change::Reopen { task: 1, reason: "the user widened the criterion".into() },
            complete(1, vec![pass("make check")]),
        ],
        expect![[r#"
            reopen           refused: task 1 is pending; only a completed, blocked or skipped task can be reopened
            completion       1:completed 2:pending | plan in_progress
                log: Task 1 gate `make`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: a.
            task start       refused: task 1 is already completed; reopen it with a reason first
            reopen           1:in_progress 2:pending | plan in_progress
                log: Task 1 reopened (completed): the user widened the criterion.
                log: Task 1 gate `make` invalidated by the reopen (was: passes (exit 0) — 12 passed, 0 failed).
            completion       1:completed 2:pending | plan in_progress
                log: Task 1 gate `make check`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: a.
        "#]],
    );
}

/// Every task finished still leaves the plan `in_progress`: only the finaliser's verdict
/// completes it (issue 49; `tests/verdicts.rs`).
#[test]
fn skipped_only_by_the_user_and_completes_a_plan_only_beside_completed_work() {
    run(
        plan(&["a", "b"]),
        &[
            complete(1, vec![pass("make")]),
            Change::Skip { task: 1, reason: "no".into() },
            Change::Skip { task: 2, reason: "out of scope after all".into() },
            Change::Start { task: 2 },
            complete(2, vec![pass("make")]),
            Change::Reopen { task: 2, reason: "back in scope".into() },
            complete(2, vec![pass("make")]),
        ],
        expect![[r#"
            completion       1:completed 2:pending | plan in_progress
                log: Task 1 gate `make`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: a.
            skip             refused: task 1 is already completed; reopen it with a reason first
            skip             1:completed 2:skipped | plan in_progress
                log: Task 2 skipped by the user: out of scope after all.
            task start       refused: task 2 was skipped by the user; reopen it with a reason first
            completion       refused: task 2 was skipped by the user; reopen it with a reason first
            reopen           1:completed 2:in_progress | plan in_progress
                log: Task 2 reopened (skipped): back in scope.
            completion       1:completed 2:completed | plan in_progress
                log: Task 2 gate `make`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 2 completed: b.
        "#]],
    );
}

#[test]
fn skipped_work_alone_never_completes_a_plan() {
    run(
        plan(&["a", "b"]),
        &[
            Change::Skip { task: 1, reason: "no".into() },
            Change::Retire { task: 2, reason: "the executor's own, not needed".into() },
        ],
        expect![[r#"
            skip             1:skipped 2:pending | plan in_progress
                log: Task 1 skipped by the user: no.
            own task dropped 1:skipped 2:skipped | plan in_progress
                log: Task 2, added by the executor, dropped: the executor's own, not needed.
        "#]],
    );
}

#[test]
fn checkpoints_belong_to_the_task_in_progress() {
    run(
        plan(&["a", "b"]),
        &[
            Change::Checkpoint { task: 1, step: "instructions:4".into(), note: "x".into() },
            Change::Start { task: 1 },
            Change::Checkpoint {
                task: 1,
                step: "instructions:4".into(),
                note: "queue table migrated".into(),
            },
            Change::Checkpoint { task: 2, step: "1".into(), note: String::new() },
            complete(1, vec![pass("make")]),
        ],
        expect![[r#"
            checkpoint       refused: a checkpoint belongs to the task in progress; task 1 is pending
            task start       1:in_progress 2:pending | plan in_progress
                log: Task 1 started: a.
            checkpoint       1:in_progress 2:pending | plan in_progress
                log: Checkpoint in task 1 at instructions:4: queue table migrated.
            checkpoint       refused: a checkpoint belongs to the task in progress; task 2 is pending
            completion       1:completed 2:pending | plan in_progress
                log: Task 1 gate `make`: passes (exit 0) — 12 passed, 0 failed.
                log: Task 1 completed: a.
        "#]],
    );
}

#[test]
fn text_limits_and_unknown_tasks_are_refusals() {
    let long = "x".repeat(201);
    run(
        plan(&["a"]),
        &[
            Change::Start { task: 9 },
            Change::Block { task: 1, reason: "  ".into(), needs: String::new() },
            Change::Block { task: 1, reason: long.clone(), needs: String::new() },
            Change::AddTask { id: 1, title: "again".into(), phase: None },
            Change::AddTask { id: 2, title: "new\nwork".into(), phase: Some("later".into()) },
            Change::Complete {
                task: 1,
                gates: vec![pass("make")],
                outcome: None,
                commit: Some("not-hex".into()),
            },
            Change::Complete {
                task: 1,
                gates: vec![pass("make")],
                outcome: Some(Outcome { worked: Some(long), ..Outcome::default() }),
                commit: None,
            },
        ],
        expect![[r#"
            task start       refused: no task 9 in state.json; tasks: 1
            blocked          refused: the block reason must not be empty
            blocked          refused: the block reason has 201 characters; the limit is 200: say it in one line
            task added       refused: task 1 is already in state.json
            task added       1:pending 2:pending | plan pending
                log: Task 2 added: new work.
            completion       refused: commit "not-hex" is not a short hexadecimal hash (7 to 40 characters)
            completion       refused: an outcome entry has 201 characters; the limit is 200: one line each
        "#]],
    );
}

#[test]
fn a_completed_entry_carries_completed_at_commit_and_outcome() {
    let outcome = Outcome {
        tried: vec!["a\nb".into(), " ".into()],
        failed: vec![],
        worked: Some("c".into()),
        notes: None,
    };
    let change = Change::Complete {
        task: 1,
        gates: vec![pass("make")],
        outcome: Some(outcome),
        commit: Some("A1B2C3D".into()),
    };
    let state = apply(&plan(&["a"]), &change, &at(5), &by()).unwrap().state;
    let task = &state.tasks[0];
    assert_eq!(task.status, Status::Completed);
    assert_eq!(task.completed_at.as_deref(), Some(at(5).as_str()));
    assert_eq!(task.started_at.as_deref(), Some(at(5).as_str()));
    assert_eq!(task.commit.as_deref(), Some("a1b2c3d"));
    assert_eq!(task.outcome.as_ref().unwrap().tried, vec!["a b"]);
    assert_eq!(task.gates[0].last_run, at(5));
    assert_eq!(state.updated_by, Some(by()));
    assert_eq!((state.completed_count, state.task_count), (1, 1));
}
