//! The tracker-to-state mapping through the conversions: which changes a task list means
//! against `state.json`.

use preflight_dwp::{apply, changes_for, Author, Change, DwpError, PlanState, Status, TrackedTask};
use preflight_protocol::tasks::{Gate, NewTask, Operation, TaskList};
use serde_json::json;

use super::tracked_tasks;

/// A timestamp `minute` minutes into the test day.
fn at(minute: u32) -> String {
    format!("2026-06-09T{:02}:{:02}:00Z", 14 + minute / 60, minute % 60)
}

fn by() -> Author {
    Author::preflight(Some("test-model"))
}

/// A ready Lite plan with one pending task per title, ids from 1 (each added as the
/// updater adds a task).
fn plan(titles: &[&str]) -> PlanState {
    let empty = json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v2.json",
        "plan": "PLAN_test", "updated_at": at(0), "status": "pending", "completed_count": 0,
        "task_count": 0, "format": "lite", "materialization": "ready", "approval": "approved",
        "tasks": [],
    });
    let mut state: PlanState = serde_json::from_value(empty).unwrap();
    for (id, title) in (1..).zip(titles) {
        let add = Change::AddTask { id, title: (*title).to_owned(), phase: None };
        state = apply(&state, &add, &at(0), &by()).unwrap().state;
    }
    state
}

fn tracked(list: &TaskList) -> Vec<TrackedTask> {
    tracked_tasks(list)
}

fn gate(exit_code: i64) -> Gate {
    Gate {
        command: "cargo test".into(),
        exit_code,
        passes: exit_code == 0,
        evidence: if exit_code == 0 { "9 passed".into() } else { "1 failed".into() },
        duration_ms: 40,
        last_run: "2026-12-01T10:00:00Z".into(),
        timed_out: false,
    }
}

/// `done` with the gate Preflight measured.
fn done(list: &TaskList, id: u32, outcome: Option<&str>, gate: Option<Gate>) -> TaskList {
    let op = Operation::Done { id, outcome: outcome.map(str::to_owned), gate: None };
    list.apply_measured(&op, gate.as_ref()).unwrap()
}

/// The state after syncing `list`, and the points written (refusals shown as `!point`).
fn sync(state: &PlanState, list: &TaskList) -> (PlanState, Vec<String>) {
    let mut state = state.clone();
    let mut points = Vec::new();
    for change in changes_for(&state, &tracked(list), None).unwrap().changes {
        match apply(&state, &change, &at(1), &by()) {
            Ok(applied) => {
                state = applied.state;
                points.push(change.point().to_owned());
            }
            Err(_) => points.push(format!("!{}", change.point())),
        }
    }
    (state, points)
}

fn statuses(state: &PlanState) -> Vec<Status> {
    state.tasks.iter().map(|t| t.status).collect()
}

#[test]
fn tracker_statuses_map_to_the_seeds_words() {
    use Status::*;
    let list = TaskList::from_steps(["a", "b", "c"]).unwrap();
    let state = plan(&["a", "b", "c"]);
    let (state, points) = sync(&state, &list);
    assert_eq!(
        (statuses(&state), points),
        (vec![InProgress, Pending, Pending], vec!["task start".to_owned()])
    );

    let done = done(&list, 1, Some("all in agent.rs"), Some(gate(0)));
    let (state, points) = sync(&state, &done);
    assert_eq!(statuses(&state), vec![Completed, InProgress, Pending]);
    assert_eq!(
        points,
        vec!["completion", "task start"],
        "completion is written before the next start"
    );
    assert_eq!(state.tasks[0].outcome.as_ref().unwrap().worked.as_deref(), Some("all in agent.rs"));

    // A plan step reaches the list as dropped only once the user approved (DESIGN §12):
    // skipped at once, with the executor's reason.
    let dropped =
        done.apply(&Operation::Drop { id: 2, outcome: Some("needs a licence".into()) }).unwrap();
    let (state, _) = sync(&state, &dropped);
    assert_eq!(statuses(&state), vec![Completed, Skipped, InProgress]);
    assert_eq!(state.blocked, None);
    let notes = state.tasks[1].outcome.as_ref().and_then(|o| o.notes.as_deref());
    assert!(notes.is_some_and(|n| n.contains("approved: needs a licence")), "{notes:?}");

    let (again, points) = sync(&state, &dropped);
    assert_eq!(
        (again.tasks.clone(), points),
        (state.tasks.clone(), vec![]),
        "a second sync is a no-op"
    );
}

#[test]
fn a_done_without_a_passing_gate_is_not_completed() {
    let list = TaskList::from_steps(["a", "b"]).unwrap();
    let (state, _) = sync(&plan(&["a", "b"]), &list);
    for gate in [None, Some(gate(1))] {
        let done = done(&list, 1, None, gate);
        let (after, points) = sync(&state, &done);
        assert_eq!(statuses(&after), vec![Status::Pending, Status::InProgress], "{points:?}");
        assert!(points.contains(&"!completion".to_owned()), "{points:?}");
    }
}

#[test]
fn restarting_a_finished_task_reopens_it() {
    let list = TaskList::from_steps(["a", "b"]).unwrap();
    let done = done(&list, 1, None, Some(gate(0)));
    let (state, _) = sync(&plan(&["a", "b"]), &done);
    let restarted = done.apply(&Operation::Start { id: 1 }).unwrap();
    let (state, points) = sync(&state, &restarted);
    assert_eq!(points, vec!["reopen"]);
    assert_eq!(statuses(&state), vec![Status::InProgress, Status::Pending]);
    assert!(state.tasks[0].gates.iter().all(|g| g.invalidated.is_some()));
}

#[test]
fn a_failing_rerun_of_a_completed_task_withdraws_the_completion() {
    let list = TaskList::from_steps(["a", "b"]).unwrap();
    let done = done(&list, 1, None, Some(gate(0)));
    let (state, _) = sync(&plan(&["a", "b"]), &done);
    let rerun = done.with_gate_run(1, &gate(1)).unwrap();
    let (state, points) = sync(&state, &rerun);
    assert_eq!(points, vec!["gate run"]);
    assert_eq!(
        statuses(&state),
        vec![Status::Pending, Status::InProgress],
        "task 2 stays the one in progress"
    );
    let (_, points) = sync(&state, &rerun);
    assert!(points.is_empty(), "the same run is not recorded twice: {points:?}");
}

#[test]
fn added_tasks_are_added_and_a_replaced_list_is_refused() {
    let list = TaskList::from_steps(["a"]).unwrap();
    let added =
        list.apply(&Operation::Add { tasks: vec![NewTask::new("b", Some("later"))] }).unwrap();
    let (state, points) = sync(&plan(&["a"]), &added);
    assert_eq!(points, vec!["task added", "task start"]);
    assert_eq!(state.tasks[1].phase.as_deref(), Some("later"));

    let replaced =
        list.apply(&Operation::Init { tasks: vec![NewTask::new("other", None)] }).unwrap();
    let refusal = changes_for(&state, &tracked(&replaced), None).unwrap_err();
    assert!(matches!(refusal, DwpError::TaskListReplaced { .. }), "{refusal}");
    assert!(refusal.to_string().contains("task 1 is now \"other\""), "{refusal}");
}

#[test]
fn a_skipped_drop_stays_skipped_and_an_own_task_leaves_as_the_executors() {
    let list = TaskList::from_steps(["a", "b"]).unwrap();
    let dropped = list.apply(&Operation::Drop { id: 1, outcome: None }).unwrap();
    let (state, _) = sync(&plan(&["a", "b"]), &dropped);
    assert_eq!(state.tasks[0].status, Status::Skipped);
    let (state, points) = sync(&state, &dropped);
    assert_eq!(points, Vec::<String>::new(), "a sync is idempotent");
    assert_eq!(state.blocked, None);

    let own = dropped.apply(&Operation::Add { tasks: vec![NewTask::new("c", None)] }).unwrap();
    let own = own.apply(&Operation::Drop { id: 3, outcome: Some("not needed".into()) }).unwrap();
    let (state, points) = sync(&state, &own);
    assert_eq!(points, vec!["task added", "own task dropped"]);
    assert_eq!(state.tasks[2].status, Status::Skipped);
}
