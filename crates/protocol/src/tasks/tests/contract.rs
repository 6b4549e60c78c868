//! The plan as a contract: which calls are plan changes, what an approved change makes,
//! and the completion record's figures computed from the history.

use serde_json::json;

use crate::tasks::{
    ChangeKind, DeviationKind, Operation, TaskList, TaskOrigin, TaskStatus, TrackerError,
};

fn op(value: serde_json::Value) -> Operation {
    Operation::from_value(&value).unwrap()
}

/// A list approved from four steps, saved at "t0".
fn approved() -> TaskList {
    TaskList::from_steps(["dig", "build", "test", "docs"])
        .unwrap()
        .stamped(&TaskList::empty(), "t0")
}

/// Applies `ops` one by one, each saved at its own time, as `turn_plan` does.
fn run(mut list: TaskList, ops: &[serde_json::Value]) -> TaskList {
    for (at, value) in ops.iter().enumerate() {
        let next = list.apply(&op(value.clone())).unwrap();
        list = next.stamped(&list, &format!("t{}", at + 1));
    }
    list
}

#[test]
fn dropping_rewording_or_replacing_a_plan_step_is_a_change_and_own_tasks_stay_free() {
    let list = run(approved(), &[json!({"op":"add","tasks":["own"]})]);
    let drop = list.plan_change(&op(json!({"op":"drop","id":2,"outcome":"not needed"}))).unwrap();
    let drop = drop.expect("a plan step's drop is a change");
    assert_eq!(
        (drop.kind, drop.task, drop.reason.as_str()),
        (ChangeKind::Drop, Some(2), "not needed")
    );
    assert_eq!(drop.title.as_deref(), Some("build"));
    let modify = list.plan_change(&op(json!({"op":"modify","id":3,"title":"test all"})));
    let modify = modify.unwrap().unwrap();
    assert_eq!((modify.kind, modify.new_title.as_deref()), (ChangeKind::Modify, Some("test all")));
    let replace = list.plan_change(&op(json!({"op":"init","tasks":["x"]}))).unwrap().unwrap();
    assert_eq!((replace.kind, replace.tasks.unwrap().len()), (ChangeKind::Replace, 1));
    for free in [
        json!({"op":"drop","id":5}),
        json!({"op":"modify","id":5,"title":"own, reworded"}),
        json!({"op":"done","id":1}),
        json!({"op":"start","id":3}),
        json!({"op":"add","tasks":["more"]}),
        json!({"op":"modify","id":2,"title":"build"}),
    ] {
        assert_eq!(list.plan_change(&op(free.clone())), Ok(None), "{free}");
    }
    let executor_only = TaskList::empty().apply(&op(json!({"op":"init","tasks":["a"]}))).unwrap();
    assert_eq!(executor_only.plan_change(&op(json!({"op":"init","tasks":["b"]}))), Ok(None));
}

#[test]
fn a_change_that_could_not_apply_is_refused_before_it_waits() {
    let list = approved();
    let missing = list.plan_change(&op(json!({"op":"drop","id":9})));
    assert_eq!(missing, Ok(None), "a missing task is no plan step: the drop itself refuses it");
    assert!(matches!(
        list.apply(&op(json!({"op":"drop","id":9}))),
        Err(TrackerError::NoSuchTask { .. })
    ));
    let long = "x".repeat(121);
    let refused = list.plan_change(&op(json!({"op":"modify","id":1,"title":long})));
    assert!(matches!(refused, Err(TrackerError::TitleTooLong { .. })), "{refused:?}");
}

#[test]
fn an_approved_replacement_keeps_what_is_done_and_never_reuses_an_id() {
    let list = run(approved(), &[json!({"op":"done","id":1})]);
    let replace = list.plan_change(&op(json!({"op":"init","tasks":["new a","new b"]})));
    let next = list.with_change(&replace.unwrap().unwrap()).unwrap();
    let shown: Vec<(u32, &str, TaskStatus, TaskOrigin)> =
        next.tasks.iter().map(|t| (t.id, t.title.as_str(), t.status, t.origin)).collect();
    assert_eq!(shown[0], (1, "dig", TaskStatus::Done, TaskOrigin::Plan));
    assert!(shown[1..4].iter().all(|t| t.2 == TaskStatus::Dropped));
    assert_eq!(shown[4], (5, "new a", TaskStatus::Active, TaskOrigin::Plan));
    assert_eq!(shown[5], (6, "new b", TaskStatus::Pending, TaskOrigin::Plan));
    assert_eq!(next.planned, vec![1, 2, 3, 4], "the approved plan the work is measured against");
}

#[test]
fn the_completion_counts_a_dropped_an_added_and_an_out_of_order_step() {
    let approved_drop = |list: &TaskList, id: u32| {
        let change = list.plan_change(&op(json!({"op":"drop","id":id,"outcome":"obsolete"})));
        list.with_change(&change.unwrap().unwrap()).unwrap().stamped(list, "tx")
    };
    let list = run(
        approved(),
        &[
            json!({"op":"done","id":1}),
            json!({"op":"add","tasks":["fix the flaky test"]}),
            json!({"op":"start","id":3}),
            json!({"op":"done","id":3}),
            json!({"op":"done","id":2}),
            json!({"op":"done","id":5}),
        ],
    );
    let list = approved_drop(&list, 4);
    assert!(list.plan_finished());
    let record = list.completion("  All built.  ", "t9");
    let a = &record.adherence;
    assert_eq!(
        (a.steps, a.done_as_planned, a.modified, a.dropped, a.added, a.in_order),
        (4, 3, 0, 1, 1, false)
    );
    let kinds: Vec<(DeviationKind, u32)> =
        record.deviations.iter().map(|d| (d.kind, d.task)).collect();
    assert_eq!(
        kinds,
        vec![
            (DeviationKind::Dropped, 4),
            (DeviationKind::Added, 5),
            (DeviationKind::OutOfOrder, 3)
        ]
    );
    assert_eq!(record.deviations[0].detail, "obsolete");
    assert_eq!(record.deviations[2].detail, "finished before step 2");
    assert_eq!(record.summary, "All built.");
    let titles: Vec<&str> = record.planned.iter().map(|s| s.title.as_str()).collect();
    assert_eq!(titles, ["dig", "build", "test", "docs"]);
}

#[test]
fn a_reworded_step_counts_as_modified_with_its_old_and_new_title() {
    let list = approved();
    let change = list.plan_change(&op(json!({"op":"modify","id":2,"title":"build twice"})));
    let list = list.with_change(&change.unwrap().unwrap()).unwrap().stamped(&list, "t1");
    let list = run(
        list,
        &[
            json!({"op":"done","id":1}),
            json!({"op":"done","id":2}),
            json!({"op":"done","id":3}),
            json!({"op":"done","id":4}),
        ],
    );
    let record = list.completion("done", "t9");
    assert_eq!((record.adherence.done_as_planned, record.adherence.modified), (3, 1));
    assert!(record.adherence.in_order);
    assert_eq!(record.planned[1].title, "build");
    assert_eq!(record.deviations[0].detail, "now: build twice");
    assert!(record.tasks.iter().all(|t| t.created_at.is_some() && t.updated_at.is_some()));
}

#[test]
fn an_executor_list_is_never_a_finished_plan() {
    let list = TaskList::empty().apply(&op(json!({"op":"init","tasks":["a"]}))).unwrap();
    let list = list.apply(&op(json!({"op":"done","id":1}))).unwrap();
    assert!(list.is_finished() && !list.plan_finished());
}
