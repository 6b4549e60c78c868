//! The nag reminder: after three executor rounds without `turn_plan` while tasks are left,
//! once, on the next message; never without a plan.

mod support;

use std::sync::Arc;

use preflight_agent::{Agent, Availability, ToolRegistry, TurnScope, REMINDER};
use preflight_protocol::tasks::{TaskList, TOOL_NAME};
use preflight_testkit::{Reply, Script};
use serde_json::json;
use support::agent::*;

fn echoes(rounds: usize) -> Script {
    let mut replies: Vec<Reply> =
        (0..rounds).map(|n| Reply::tool_call("echo", json!({"n": n}))).collect();
    replies.push(Reply::text("finished"));
    Script::replies(replies)
}

async fn run(harness: &Harness) {
    let mut registry = ToolRegistry::with_builtins(harness.store.clone());
    registry.register(Arc::new(Echo), Availability::EXECUTOR);
    let tools = registry.offer(&TurnScope { agent: Agent::Executor, task_list: true }).await;
    harness.run(harness.executor("system", &tools, 20)).await.unwrap();
}

#[tokio::test]
async fn three_rounds_without_turn_plan_bring_one_reminder_before_the_state() {
    let harness = Harness::new(echoes(7)).await;
    let list = TaskList::from_steps(["read", "write"]).unwrap();
    harness.store.save_task_list(&harness.chat_id, &list).unwrap();
    run(&harness).await;

    let reminded: Vec<bool> = harness
        .server
        .requests()
        .iter()
        .map(|r| r.last_message_text().contains(REMINDER))
        .collect();
    // Request n follows n rounds: the reminder after rounds 3 and 6.
    assert_eq!(reminded, [false, false, false, true, false, false, true, false]);
    let fourth = harness.server.requests()[3].last_message_text();
    assert!(fourth.ends_with(&format!("{REMINDER}\n\n[state]\n{}", list.render())), "{fourth}");
    assert_eq!(fourth.matches(REMINDER).count(), 1);
    assert!(harness.server.requests().iter().all(|r| !r.system().contains(REMINDER)));
}

#[tokio::test]
async fn a_turn_plan_call_restarts_the_count() {
    let replies = vec![
        Reply::tool_call("echo", json!({})),
        Reply::tool_call("echo", json!({})),
        Reply::tool_call(TOOL_NAME, json!({"op": "start", "id": 2})),
        Reply::tool_call("echo", json!({})),
        Reply::tool_call("echo", json!({})),
        Reply::text("finished"),
    ];
    let harness = Harness::new(Script::replies(replies)).await;
    harness
        .store
        .save_task_list(&harness.chat_id, &TaskList::from_steps(["a", "b"]).unwrap())
        .unwrap();
    run(&harness).await;
    assert!(harness.server.requests().iter().all(|r| !r.last_message_text().contains(REMINDER)));
}

#[tokio::test]
async fn no_plan_no_reminder_and_no_state() {
    let harness = Harness::new(echoes(5)).await;
    run(&harness).await;
    for request in harness.server.requests() {
        let text = request.last_message_text();
        assert!(!text.contains(REMINDER) && !text.contains("[state]"), "{text}");
    }
}
