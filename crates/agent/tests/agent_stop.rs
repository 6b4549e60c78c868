//! Stopping a turn: while the model answers, while a tool runs, and quiet turns. The store
//! is consistent after every stop: no assistant tool call without its result.

mod support;

use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::{run_turn, Agent, Availability, ToolRegistry, TurnEnd, TurnScope};
use preflight_protocol::chat::MessageBody;
use preflight_testkit::{Answer, Script};
use serde_json::json;
use support::agent::*;
use tokio_util::sync::CancellationToken;

const EXECUTOR: TurnScope = TurnScope { agent: Agent::Executor, task_list: false };

#[tokio::test]
async fn a_stop_while_the_model_answers_keeps_what_was_streamed() {
    let script = Script::replies([Answer::new().words("I will start with ").stall().into()]);
    let mut harness = Harness::new(script).await;
    let tools = ToolRegistry::new().offer(&EXECUTOR).await;
    let cancel = CancellationToken::new();
    let mut received =
        std::mem::replace(&mut harness.received, tokio::sync::mpsc::unbounded_channel().1);
    let stop_after_the_fourth_delta = async {
        let mut deltas = 0;
        while let Some(event) = received.recv().await {
            deltas += matches!(event, Event::Delta { .. }) as usize;
            if deltas == 4 {
                cancel.cancel();
                return;
            }
        }
    };
    let (outcome, ()) = tokio::join!(
        run_turn(harness.executor("system", &tools, 5), &cancel),
        stop_after_the_fourth_delta
    );
    let outcome = outcome.unwrap();

    assert_eq!((outcome.end, outcome.text.as_str()), (TurnEnd::Stopped, "I will start with "));
    let stored = harness.stored_after_user();
    assert_eq!(stored.len(), 1);
    assert!(
        matches!(&stored[0].body, MessageBody::Assistant { content, tool_calls, .. } if content == "I will start with " && tool_calls.is_empty())
    );
}

#[tokio::test]
async fn a_stop_while_a_tool_runs_stores_the_round_whole() {
    let script = Script::replies([Answer::new()
        .tool_call("block", json!({}))
        .tool_call("echo", json!({"x": 1}))
        .into()]);
    let mut harness = Harness::new(script).await;
    let mut registry = ToolRegistry::new();
    registry
        .register(Arc::new(Block), Availability::EXECUTOR)
        .register(Arc::new(Echo), Availability::EXECUTOR);
    let tools = registry.offer(&EXECUTOR).await;
    let cancel = CancellationToken::new();
    let mut received =
        std::mem::replace(&mut harness.received, tokio::sync::mpsc::unbounded_channel().1);
    let stop_when_block_starts = async {
        while let Some(event) = received.recv().await {
            if matches!(&event, Event::Tool { name, result: None, error: None, .. } if name == "block")
            {
                cancel.cancel();
                return;
            }
        }
    };
    let (outcome, ()) = tokio::join!(
        run_turn(harness.executor("system", &tools, 5), &cancel),
        stop_when_block_starts
    );

    assert_eq!(outcome.unwrap().end, TurnEnd::Stopped);
    let stored = harness.stored_after_user();
    assert_whole_rounds(&stored);
    let results: Vec<(&str, bool)> = stored
        .iter()
        .filter_map(|m| match &m.body {
            MessageBody::Tool { content, is_error, .. } => Some((content.as_str(), *is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        [("stopped by the user while it ran", true), ("not run: the user stopped the turn", true)]
    );
    assert_eq!(harness.server.requests().len(), 1, "no model call after the stop");
}

#[tokio::test]
async fn a_turn_stopped_before_it_starts_calls_nothing_and_stores_nothing() {
    let harness = Harness::new(Script::replies([preflight_testkit::Reply::text("never")])).await;
    let tools = ToolRegistry::new().offer(&EXECUTOR).await;
    let cancel = CancellationToken::new();
    cancel.cancel();
    let outcome = run_turn(harness.executor("system", &tools, 5), &cancel).await.unwrap();
    assert_eq!(outcome.end, TurnEnd::Stopped);
    assert_eq!((harness.server.requests().len(), harness.stored_after_user().len()), (0, 0));
}

#[tokio::test]
async fn quiet_and_streaming_turns_differ_only_in_what_they_show() {
    let answer = || Script::replies([Answer::new().words("one two three").into()]);
    let mut streaming = Harness::new(answer()).await;
    let tools = ToolRegistry::new().offer(&EXECUTOR).await;
    streaming.run(streaming.executor("system", &tools, 5)).await.unwrap();
    let deltas: String = streaming
        .drain_events()
        .iter()
        .filter_map(|e| match e {
            Event::Delta { text, .. } => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, "one two three");

    let mut quiet = Harness::new(answer()).await;
    let outcome = quiet.run(quiet.planner("system", &tools)).await.unwrap();
    assert_eq!(outcome.text, "one two three");
    assert_eq!(quiet.drain_events(), []);
}
