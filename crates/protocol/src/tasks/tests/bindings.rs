//! What a plan step brings to its task (DESIGN §14): its check, which becomes the task's
//! gate and whose replacement is a plan change, and its dependencies, which bind `start`
//! and the choice of the next active task; and the executor's own plans of 3+ steps.

use serde_json::json;

use crate::tasks::{
    ChangeKind, Operation, PlannedTask, TaskList, TaskOrigin, TaskStatus, TrackerError,
};

fn op(value: serde_json::Value) -> Operation {
    Operation::from_value(&value).unwrap()
}

fn step(title: &str, check: Option<&str>, depends_on: &[u32]) -> PlannedTask {
    PlannedTask {
        title: title.to_owned(),
        check: check.map(str::to_owned),
        depends_on: depends_on.to_vec(),
    }
}

/// Write the parser (checked by a test), write the docs, then the CLI on the parser.
fn approved() -> TaskList {
    TaskList::from_plan(vec![
        step("parser", Some("cargo test parser"), &[]),
        step("docs", None, &[]),
        step("cli", Some("  cargo test cli "), &[1, 3, 7]),
    ])
    .unwrap()
}

#[test]
fn steps_bring_their_checks_and_only_earlier_dependencies() {
    let list = approved();
    let kept: Vec<(u32, Option<&str>, &[u32])> =
        list.tasks.iter().map(|t| (t.id, t.check.as_deref(), t.depends_on.as_slice())).collect();
    assert_eq!(
        kept,
        [
            (1, Some("cargo test parser"), &[][..]),
            (2, None, &[][..]),
            (3, Some("cargo test cli"), &[1][..]),
        ]
    );
    assert!(list.tasks.iter().all(|t| t.origin == TaskOrigin::Plan));
    let rendered = list.render();
    assert!(rendered.contains("1 [>] parser (check: `cargo test parser`)"), "{rendered}");
    assert!(rendered.contains("3 [ ] cli (after 1; check: `cargo test cli`)"), "{rendered}");
}

#[test]
fn a_task_cannot_start_before_its_dependencies_are_done() {
    let list = approved();
    let refusal = list.apply(&op(json!({"op":"start","id":3}))).unwrap_err();
    assert!(
        matches!(&refusal, TrackerError::DependenciesOpen { id: 3, waiting } if waiting == &["task 1 “parser”"]),
        "{refusal:?}"
    );
    assert_eq!(
        refusal.to_string(),
        "task 3 cannot start yet: it depends on task 1 “parser”, not done yet. Finish it first"
    );
    let list = list.apply(&op(json!({"op":"done","id":1}))).unwrap();
    let started = list.apply(&op(json!({"op":"start","id":3}))).unwrap();
    assert_eq!(started.active().map(|t| t.id), Some(3));
}

#[test]
fn the_next_active_task_is_the_first_pending_one_whose_dependencies_are_done() {
    // Shown in the order cli (after 1), parser, docs, as a list grouped by phase may be:
    // the first pending task waits for parser, so parser is the one picked.
    let mut list = TaskList::from_plan(vec![
        step("parser", None, &[]),
        step("cli", None, &[1]),
        step("docs", None, &[]),
    ])
    .unwrap();
    list.tasks.swap(0, 1);
    let list = list.apply(&op(json!({"op":"start","id":3}))).unwrap();
    let list = list.apply(&op(json!({"op":"done","id":3}))).unwrap();
    assert_eq!(list.active().map(|t| t.id), Some(1), "cli waits for parser");
    let list = list.apply(&op(json!({"op":"done","id":1}))).unwrap();
    assert_eq!(list.active().map(|t| t.id), Some(2));
    // A dropped dependency no longer holds its task back.
    let list = TaskList::from_plan(vec![step("a", None, &[]), step("b", None, &[1])]).unwrap();
    let list = list.apply(&op(json!({"op":"drop","id":1}))).unwrap();
    assert_eq!(list.active().map(|t| t.id), Some(2));
}

#[test]
fn another_command_than_the_planned_check_is_a_plan_change() {
    let list = approved();
    let same = op(json!({"op":"done","id":1,"gate":{"command":" cargo test parser "}}));
    assert_eq!(list.plan_change(&same).unwrap(), None, "the planned check itself is free");
    let own = op(json!({"op":"done","id":2,"gate":{"command":"make docs"}}));
    assert_eq!(list.plan_change(&own).unwrap(), None, "a step without a check is free");
    let other = op(json!({"op":"done","id":1,"outcome":"tests moved","gate":{"command":"true"}}));
    let change = list.plan_change(&other).unwrap().expect("a change");
    assert_eq!(
        (change.kind, change.task, change.new_check.as_deref(), change.old_check.as_deref()),
        (ChangeKind::Check, Some(1), Some("true"), Some("cargo test parser"))
    );
    assert_eq!(change.reason, "tests moved");
    let changed = list.with_change(&change).unwrap();
    assert_eq!(changed.get(1).unwrap().check.as_deref(), Some("true"));
    assert_eq!(changed.get(1).unwrap().status, TaskStatus::Active, "approval does not finish it");
    let blank = op(json!({"op":"done","id":1,"gate":{"command":"  "}}));
    assert_eq!(list.plan_change(&blank), Err(TrackerError::EmptyCheck));
}

#[test]
fn the_executor_plans_only_three_or_more_steps_of_its_own() {
    let empty = TaskList::empty();
    let two = op(json!({"op":"init","tasks":["a","b"]}));
    let refusal = empty.check_own_plan_size(&two).unwrap_err();
    assert_eq!(refusal, TrackerError::TooFewTasks { given: 2, least: 3 });
    assert!(refusal.to_string().contains("do the work"), "{refusal}");
    assert_eq!(empty.check_own_plan_size(&op(json!({"op":"init","tasks":["a","b","c"]}))), Ok(()));
    assert_eq!(empty.check_own_plan_size(&op(json!({"op":"init","tasks":[]}))), Ok(()), "clearing");
    assert_eq!(approved().check_own_plan_size(&two), Ok(()), "over plan steps: a change");
    let own = empty.apply(&op(json!({"op":"init","tasks":["a","b","c"]}))).unwrap();
    assert!(own.check_own_plan_size(&two).is_err(), "own list replaced by a short one");
}
