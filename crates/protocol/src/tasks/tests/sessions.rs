//! Scripted `turn_plan` sessions: each call, then the tree it returns or the refusal.
//!
//! A refused call prints the error and then the unchanged tree, which shows the rollback.

use expect_test::{expect, Expect};

use crate::tasks::TaskList;

/// Runs one JSON call per non-blank line of `script`, starting from an empty list.
fn check(script: &str, expected: Expect) {
    check_from(TaskList::empty(), script, expected);
}

fn check_from(mut list: TaskList, script: &str, expected: Expect) {
    let mut log = String::new();
    for call in script.lines().map(str::trim).filter(|line| !line.is_empty()) {
        let arguments: serde_json::Value = serde_json::from_str(call).expect("script line is JSON");
        log.push_str(&format!("> {call}\n"));
        match list.apply_tool_call(&arguments) {
            Ok(next) => list = next,
            Err(refusal) => log.push_str(&format!("error: {refusal}\n")),
        }
        log.push_str(&list.render());
        log.push('\n');
    }
    expected.assert_eq(&log);
}

#[test]
fn design_example() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"find every call site","phase":"dig"},{"title":"read the config schema","phase":"dig"},{"title":"add the field","phase":"build"},{"title":"update the book","phase":"build"}]}
        {"op":"done","id":1,"outcome":"all in agent.rs"}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"find every call site","phase":"dig"},{"title":"read the config schema","phase":"dig"},{"title":"add the field","phase":"build"},{"title":"update the book","phase":"build"}]}
            [plan] Your plan for the work at hand — 4 tasks: 0 done, 0 dropped, 4 left.
            ## dig
            1 [>] find every call site
            2 [ ] read the config schema
            ## build
            3 [ ] add the field
            4 [ ] update the book
            > {"op":"done","id":1,"outcome":"all in agent.rs"}
            [plan] Your plan for the work at hand — 4 tasks: 1 done, 0 dropped, 3 left.
            ## dig
            1 [x] find every call site — all in agent.rs
            2 [>] read the config schema
            ## build
            3 [ ] add the field
            4 [ ] update the book
        "#]],
    );
}

#[test]
fn empty_list_and_clearing() {
    check(
        r#"
        {"op":"init","tasks":[]}
        {"op":"init","tasks":[{"title":"one"},{"title":"two"}]}
        {"op":"init","tasks":[]}
        {"op":"add","tasks":[{"title":"after the clear"}]}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[]}
            [plan] No plan. For work of several steps, make one with {"op":"init","tasks":[…]}.
            > {"op":"init","tasks":[{"title":"one"},{"title":"two"}]}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            1 [>] one
            2 [ ] two
            > {"op":"init","tasks":[]}
            [plan] No plan. For work of several steps, make one with {"op":"init","tasks":[…]}.
            > {"op":"add","tasks":[{"title":"after the clear"}]}
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] after the clear
        "#]],
    );
}

#[test]
fn init_replaces_and_restarts_ids() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
        {"op":"done","id":1}
        {"op":"init","tasks":[{"title":"x","phase":"new"},{"title":"y","phase":"new"}]}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            1 [>] a
            2 [ ] b
            3 [ ] c
            > {"op":"done","id":1}
            [plan] Your plan for the work at hand — 3 tasks: 1 done, 0 dropped, 2 left.
            1 [x] a
            2 [>] b
            3 [ ] c
            > {"op":"init","tasks":[{"title":"x","phase":"new"},{"title":"y","phase":"new"}]}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            ## new
            1 [>] x
            2 [ ] y
        "#]],
    );
}

#[test]
fn new_tasks_go_to_the_end_of_their_phase() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"find","phase":"dig"},{"title":"add","phase":"build"}]}
        {"op":"add","tasks":[{"title":"read","phase":"DIG"}]}
        {"op":"add","tasks":[{"title":"ship","phase":"release"},{"title":"test","phase":"Build"}]}
        {"op":"add","tasks":[{"title":"note","phase":"Release"}]}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"find","phase":"dig"},{"title":"add","phase":"build"}]}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            ## dig
            1 [>] find
            ## build
            2 [ ] add
            > {"op":"add","tasks":[{"title":"read","phase":"DIG"}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            ## dig
            1 [>] find
            3 [ ] read
            ## build
            2 [ ] add
            > {"op":"add","tasks":[{"title":"ship","phase":"release"},{"title":"test","phase":"Build"}]}
            [plan] Your plan for the work at hand — 5 tasks: 0 done, 0 dropped, 5 left.
            ## dig
            1 [>] find
            3 [ ] read
            ## build
            2 [ ] add
            5 [ ] test
            ## release
            4 [ ] ship
            > {"op":"add","tasks":[{"title":"note","phase":"Release"}]}
            [plan] Your plan for the work at hand — 6 tasks: 0 done, 0 dropped, 6 left.
            ## dig
            1 [>] find
            3 [ ] read
            ## build
            2 [ ] add
            5 [ ] test
            ## release
            4 [ ] ship
            6 [ ] note
        "#]],
    );
}

#[test]
fn init_groups_scattered_phases_keeping_the_first_spelling() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"a","phase":"Dig"},{"title":"b","phase":"build"},{"title":"c","phase":"dig"},{"title":"d","phase":"BUILD"}]}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a","phase":"Dig"},{"title":"b","phase":"build"},{"title":"c","phase":"dig"},{"title":"d","phase":"BUILD"}]}
            [plan] Your plan for the work at hand — 4 tasks: 0 done, 0 dropped, 4 left.
            ## Dig
            1 [>] a
            3 [ ] c
            ## build
            2 [ ] b
            4 [ ] d
        "#]],
    );
}

#[test]
fn tasks_without_a_phase_lead_the_plan_without_a_heading() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"phased","phase":"dig"},{"title":"loose one"}]}
        {"op":"add","tasks":[{"title":"loose two","phase":"  "}]}
        {"op":"add","tasks":[{"title":"more digging","phase":"dig"}]}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"phased","phase":"dig"},{"title":"loose one"}]}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            2 [>] loose one
            ## dig
            1 [ ] phased
            > {"op":"add","tasks":[{"title":"loose two","phase":"  "}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            2 [>] loose one
            3 [ ] loose two
            ## dig
            1 [ ] phased
            > {"op":"add","tasks":[{"title":"more digging","phase":"dig"}]}
            [plan] Your plan for the work at hand — 4 tasks: 0 done, 0 dropped, 4 left.
            2 [>] loose one
            3 [ ] loose two
            ## dig
            1 [ ] phased
            4 [ ] more digging
        "#]],
    );
}

#[test]
fn exactly_one_active_through_start_done_and_drop() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
        {"op":"start","id":3}
        {"op":"done","id":3,"outcome":"quick win"}
        {"op":"drop","id":1,"outcome":"not needed"}
        {"op":"done","id":2}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            1 [>] a
            2 [ ] b
            3 [ ] c
            > {"op":"start","id":3}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            1 [ ] a
            2 [ ] b
            3 [>] c
            > {"op":"done","id":3,"outcome":"quick win"}
            [plan] Your plan for the work at hand — 3 tasks: 1 done, 0 dropped, 2 left.
            1 [>] a
            2 [ ] b
            3 [x] c — quick win
            > {"op":"drop","id":1,"outcome":"not needed"}
            [plan] Your plan for the work at hand — 3 tasks: 1 done, 1 dropped, 1 left.
            1 [~] a — not needed
            2 [>] b
            3 [x] c — quick win
            > {"op":"done","id":2}
            [plan] Your plan for the work at hand — 3 tasks: 2 done, 1 dropped, 0 left.
            1 [~] a — not needed
            2 [x] b
            3 [x] c — quick win
        "#]],
    );
}

#[test]
fn finishing_a_pending_task_leaves_the_active_one_alone() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
        {"op":"done","id":2,"outcome":"done on the way"}
        {"op":"drop","id":3}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a"},{"title":"b"},{"title":"c"}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            1 [>] a
            2 [ ] b
            3 [ ] c
            > {"op":"done","id":2,"outcome":"done on the way"}
            [plan] Your plan for the work at hand — 3 tasks: 1 done, 0 dropped, 2 left.
            1 [>] a
            2 [x] b — done on the way
            3 [ ] c
            > {"op":"drop","id":3}
            [plan] Your plan for the work at hand — 3 tasks: 1 done, 1 dropped, 1 left.
            1 [>] a
            2 [x] b — done on the way
            3 [~] c
        "#]],
    );
}

#[test]
fn finished_tasks_can_be_finished_again_or_reopened() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"a"},{"title":"b"}]}
        {"op":"done","id":1,"outcome":"first try"}
        {"op":"done","id":1}
        {"op":"done","id":1,"outcome":"second look"}
        {"op":"drop","id":1,"outcome":"reverted"}
        {"op":"start","id":1}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a"},{"title":"b"}]}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            1 [>] a
            2 [ ] b
            > {"op":"done","id":1,"outcome":"first try"}
            [plan] Your plan for the work at hand — 2 tasks: 1 done, 0 dropped, 1 left.
            1 [x] a — first try
            2 [>] b
            > {"op":"done","id":1}
            [plan] Your plan for the work at hand — 2 tasks: 1 done, 0 dropped, 1 left.
            1 [x] a — first try
            2 [>] b
            > {"op":"done","id":1,"outcome":"second look"}
            [plan] Your plan for the work at hand — 2 tasks: 1 done, 0 dropped, 1 left.
            1 [x] a — second look
            2 [>] b
            > {"op":"drop","id":1,"outcome":"reverted"}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 1 dropped, 1 left.
            1 [~] a — reverted
            2 [>] b
            > {"op":"start","id":1}
            [plan] Your plan for the work at hand — 2 tasks: 0 done, 0 dropped, 2 left.
            1 [>] a
            2 [ ] b
        "#]],
    );
}

#[test]
fn missing_ids_are_refused_listing_what_exists() {
    check(
        r#"
        {"op":"start","id":1}
        {"op":"init","tasks":[{"title":"a","phase":"dig"},{"title":"b","phase":"build"},{"title":"c"}]}
        {"op":"done","id":9,"outcome":"?"}
        {"op":"drop","id":0}
        {"op":"start","id":"4"}
        "#,
        expect![[r#"
            > {"op":"start","id":1}
            error: no task 1; the plan is empty; make one with init
            [plan] No plan. For work of several steps, make one with {"op":"init","tasks":[…]}.
            > {"op":"init","tasks":[{"title":"a","phase":"dig"},{"title":"b","phase":"build"},{"title":"c"}]}
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            3 [>] c
            ## dig
            1 [ ] a
            ## build
            2 [ ] b
            > {"op":"done","id":9,"outcome":"?"}
            error: no task 9; live tasks: 1, 2, 3; phases: dig, build
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            3 [>] c
            ## dig
            1 [ ] a
            ## build
            2 [ ] b
            > {"op":"drop","id":0}
            error: no task 0; live tasks: 1, 2, 3; phases: dig, build
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            3 [>] c
            ## dig
            1 [ ] a
            ## build
            2 [ ] b
            > {"op":"start","id":"4"}
            error: no task 4; live tasks: 1, 2, 3; phases: dig, build
            [plan] Your plan for the work at hand — 3 tasks: 0 done, 0 dropped, 3 left.
            3 [>] c
            ## dig
            1 [ ] a
            ## build
            2 [ ] b
        "#]],
    );
}

#[test]
fn limits_are_refusals_and_roll_the_whole_call_back() {
    let long_title = "t".repeat(121);
    let long_phase = "p".repeat(41);
    let long_outcome = "o".repeat(201);
    check(
        &format!(
            r#"
            {{"op":"init","tasks":[{{"title":"a"}}]}}
            {{"op":"add","tasks":[{{"title":"fine"}},{{"title":"{long_title}"}}]}}
            {{"op":"add","tasks":[{{"title":"fine"}},{{"title":"x","phase":"{long_phase}"}}]}}
            {{"op":"add","tasks":[{{"title":"fine"}},{{"title":" \n "}}]}}
            {{"op":"add","tasks":[]}}
            {{"op":"done","id":1,"outcome":"{long_outcome}"}}
            "#
        ),
        expect![[r#"
            > {"op":"init","tasks":[{"title":"a"}]}
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
            > {"op":"add","tasks":[{"title":"fine"},{"title":"ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"}]}
            error: title of task 2 of "tasks" has 121 characters; the limit is 120. Shorten it
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
            > {"op":"add","tasks":[{"title":"fine"},{"title":"x","phase":"ppppppppppppppppppppppppppppppppppppppppp"}]}
            error: phase of task 2 of "tasks" has 41 characters; the limit is 40. Shorten it
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
            > {"op":"add","tasks":[{"title":"fine"},{"title":" \n "}]}
            error: task 2 of "tasks" has an empty title
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
            > {"op":"add","tasks":[]}
            error: "add" needs at least one task in "tasks"
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
            > {"op":"done","id":1,"outcome":"ooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooooo"}
            error: outcome has 201 characters; the limit is 200. Say it in one short line
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            1 [>] a
        "#]],
    );
}

#[test]
fn forty_tasks_at_most() {
    let titles =
        |n: usize| (1..=n).map(|i| format!(r#"{{"title":"t{i}"}}"#)).collect::<Vec<_>>().join(",");
    let mut list = TaskList::empty();
    let forty =
        serde_json::from_str(&format!(r#"{{"op":"init","tasks":[{}]}}"#, titles(40))).unwrap();
    list = list.apply_tool_call(&forty).unwrap();
    assert_eq!(list.tasks.len(), 40);
    let forty_one =
        serde_json::from_str(&format!(r#"{{"op":"init","tasks":[{}]}}"#, titles(41))).unwrap();
    expect!["the plan would have 41 tasks; the limit is 40. Merge tasks, or start over with init"]
        .assert_eq(&list.apply_tool_call(&forty_one).unwrap_err().to_string());
    let one_more = serde_json::json!({"op":"add","tasks":[{"title":"one more"}]});
    expect!["the plan would have 41 tasks; the limit is 40. Merge tasks, or start over with init"]
        .assert_eq(&list.apply_tool_call(&one_more).unwrap_err().to_string());
    let with_done = list.apply_tool_call(&serde_json::json!({"op":"done","id":40})).unwrap();
    assert!(with_done.apply_tool_call(&one_more).is_err(), "finished tasks still count");
}

#[test]
fn text_is_kept_on_one_line() {
    check(
        r#"
        {"op":"init","tasks":[{"title":"  read\nthe   schema ","phase":" dig\tdeep "}]}
        {"op":"done","id":1,"outcome":"found\n\nit"}
        "#,
        expect![[r#"
            > {"op":"init","tasks":[{"title":"  read\nthe   schema ","phase":" dig\tdeep "}]}
            [plan] Your plan for the work at hand — 1 task: 0 done, 0 dropped, 1 left.
            ## dig deep
            1 [>] read the schema
            > {"op":"done","id":1,"outcome":"found\n\nit"}
            [plan] Your plan for the work at hand — 1 task: 1 done, 0 dropped, 0 left.
            ## dig deep
            1 [x] read the schema — found it
        "#]],
    );
}
