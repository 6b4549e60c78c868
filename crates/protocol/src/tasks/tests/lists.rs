//! Whole-list behaviour: plan-card lists, turn-end helpers, the wire shape, stored lists.

use expect_test::expect;
use serde_json::json;

use crate::tasks::{Gate, Operation, Priority, TaskList, TaskOrigin, TaskStatus, TrackerError};

fn statuses(list: &TaskList) -> Vec<(u32, TaskStatus)> {
    list.tasks.iter().map(|t| (t.id, t.status)).collect()
}

#[test]
fn a_plan_card_starts_a_list_with_task_one_active() {
    let list = TaskList::from_steps(["read the code", "change it", "test it"]).unwrap();
    use TaskStatus::*;
    assert_eq!(statuses(&list), [(1, Active), (2, Pending), (3, Pending)]);
    assert_eq!(list.next_id, 4);
    assert!(list.tasks.iter().all(|t| t.phase.is_none()));
}

#[test]
fn a_plan_card_breaking_a_limit_is_refused() {
    let steps = (1..=41).map(|i| format!("step {i}"));
    assert_eq!(
        TaskList::from_steps(steps),
        Err(TrackerError::TooManyTasks { would_have: 41, limit: 40 })
    );
    let long = TaskList::from_steps(["ok".to_owned(), "x".repeat(121)]).unwrap_err();
    assert_eq!(long, TrackerError::TitleTooLong { index: 2, chars: 121, limit: 120 });
    assert_eq!(TaskList::from_steps(Vec::<String>::new()), Ok(TaskList::empty()));
}

#[test]
fn turn_end_helpers() {
    let empty = TaskList::empty();
    assert!(!empty.has_work_left() && !empty.is_finished() && empty.is_empty());

    let open = TaskList::from_steps(["a", "b"]).unwrap();
    assert!(open.has_work_left() && !open.is_finished());
    assert_eq!(open.active().map(|t| t.id), Some(1));

    let half = open.apply(&Operation::Done { id: 1, outcome: None, gate: None }).unwrap();
    assert!(half.has_work_left() && !half.is_finished());
    assert_eq!(half.active().map(|t| t.id), Some(2));

    let closed = half.apply(&Operation::Drop { id: 2, outcome: None }).unwrap();
    assert!(!closed.has_work_left() && closed.is_finished());
    assert_eq!(closed.active(), None);
}

#[test]
fn wire_shape_is_id_phase_title_status_outcome_and_gate_when_recorded() {
    let list = TaskList::empty()
        .apply_tool_call(&json!({"op":"init","tasks":[
            {"title":"find","phase":"dig"},{"title":"fix"}]}))
        .unwrap()
        .apply_measured(
            &Operation::Done { id: 1, outcome: Some("all in agent.rs".into()), gate: None },
            Some(&Gate {
                command: "rg foo".into(),
                exit_code: 0,
                passes: true,
                evidence: "3 hits".into(),
                duration_ms: 12,
                last_run: "2026-12-01T10:00:00Z".into(),
                timed_out: false,
            }),
        )
        .unwrap();
    expect![[r#"
        {
          "tasks": [
            {
              "id": 2,
              "title": "fix",
              "status": "active",
              "origin": "executor"
            },
            {
              "id": 1,
              "phase": "dig",
              "title": "find",
              "status": "done",
              "outcome": "all in agent.rs",
              "gate": {
                "command": "rg foo",
                "exit_code": 0,
                "passes": true,
                "evidence": "3 hits",
                "duration_ms": 12,
                "last_run": "2026-12-01T10:00:00Z",
                "timed_out": false
              },
              "origin": "executor"
            }
          ],
          "next_id": 3
        }"#]]
    .assert_eq(&serde_json::to_string_pretty(&list).unwrap());
    let round_trip: TaskList =
        serde_json::from_value(serde_json::to_value(&list).unwrap()).unwrap();
    assert_eq!(round_trip, list);
}

#[test]
fn ids_are_never_reused_while_the_list_lives() {
    let list = TaskList::from_steps(["a", "b", "c"]).unwrap();
    let list = list.apply(&Operation::Drop { id: 3, outcome: None }).unwrap();
    let list = list.apply_tool_call(&json!({"op":"add","tasks":["d"]})).unwrap();
    assert_eq!(list.tasks.iter().map(|t| t.id).collect::<Vec<_>>(), [1, 2, 3, 4]);
    let refused = list.apply_tool_call(&json!({"op":"add","tasks":["e", ""]}));
    assert!(refused.is_err());
    let list = list.apply_tool_call(&json!({"op":"add","tasks":["e"]})).unwrap();
    assert_eq!(list.get(5).map(|t| t.title.as_str()), Some("e"), "a refused add uses up no id");
}

/// A list stored by hand or by older code: two active tasks, a scattered phase, two
/// spellings, `next_id` behind the ids in use. The next operation repairs all of it.
#[test]
fn any_operation_repairs_a_stored_list() {
    let stored: TaskList = serde_json::from_value(json!({
        "next_id": 0,
        "tasks": [
            {"id": 4, "phase": "Dig", "title": "a", "status": "active"},
            {"id": 7, "phase": "build", "title": "b", "status": "active"},
            {"id": 2, "phase": "DIG", "title": "c", "status": "pending"},
            {"id": 9, "title": "d", "status": "done"}
        ]
    }))
    .unwrap();
    let repaired = stored.apply_tool_call(&json!({"op":"add","tasks":["e"]})).unwrap();
    expect![[r#"
        [plan] Your plan for the work at hand — 5 tasks: 1 done, 0 dropped, 4 left.
        9 [x] d
        10 [ ] e
        ## Dig
        4 [>] a
        2 [ ] c
        ## build
        7 [ ] b"#]]
    .assert_eq(&repaired.render());
    assert_eq!(repaired.get(10).map(|t| t.title.as_str()), Some("e"));
    assert_eq!(repaired.next_id, 11);
    assert_eq!(repaired.phases(), ["Dig", "build"]);
    let c = repaired.get(2).unwrap();
    assert_eq!(c.phase.as_deref(), Some("Dig"), "a phase keeps its first spelling");
}

#[test]
fn a_default_list_hands_out_id_one_first() {
    let list = TaskList::default().apply_tool_call(&json!({"op":"add","tasks":["first"]})).unwrap();
    assert_eq!(list.tasks[0].id, 1);
}

#[test]
fn plan_steps_and_own_tasks_are_told_apart_and_stamped_when_they_change() {
    let t0 = "2026-12-01T10:00:00Z";
    let t1 = "2026-12-01T10:05:00Z";
    let plan = TaskList::from_steps(["read", "write"]).unwrap().stamped(&TaskList::empty(), t0);
    assert!(plan.tasks.iter().all(|t| t.origin == TaskOrigin::Plan));
    assert!(plan.tasks.iter().all(|t| t.created_at.as_deref() == Some(t0)));
    let add = json!({"op": "add", "tasks": [{"title": "check", "priority": "high"}]});
    let added = plan.apply_tool_call(&add).unwrap().stamped(&plan, t1);
    let own = added.get(3).unwrap();
    assert_eq!((own.origin, own.priority), (TaskOrigin::Executor, Some(Priority::High)));
    assert_eq!(own.created_at.as_deref(), Some(t1));
    assert_eq!(added.get(1).unwrap().updated_at.as_deref(), Some(t0), "unchanged keeps its time");
    let done = added.apply(&Operation::Done { id: 1, outcome: None, gate: None }).unwrap();
    let done = done.stamped(&added, t1);
    let first = done.get(1).unwrap();
    assert_eq!((first.created_at.as_deref(), first.updated_at.as_deref()), (Some(t0), Some(t1)));
    // `init` restarts ids: a new task 1 is a new task, not the old one.
    let init = json!({"op": "init", "tasks": ["other"]});
    let replaced = done.apply_tool_call(&init).unwrap().stamped(&done, "2026-12-01T11:00:00Z");
    assert_eq!(replaced.get(1).unwrap().created_at.as_deref(), Some("2026-12-01T11:00:00Z"));
    let bad = json!({"op": "add", "tasks": [{"title": "x", "priority": "urgent"}]});
    let refusal = plan.apply_tool_call(&bad).unwrap_err().to_string();
    assert!(refusal.contains("unknown variant `urgent`, expected one of `high`"), "{refusal}");
}
