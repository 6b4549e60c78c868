//! The agent loop end to end: the real HTTP provider against the scripted server, the real
//! store in a temp dir, the real `turn_plan` tool.

mod support;

use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::{
    executor_system_prompt, Agent, Availability, ToolRegistry, TurnEnd, TurnScope,
    DEFAULT_EXECUTOR_PROMPT,
};
use preflight_protocol::chat::MessageBody;
use preflight_protocol::planner::{planner_system_prompt, PlannerFacts, DEFAULT_PLANNER_PROMPT};
use preflight_protocol::tasks::{TaskStatus, TOOL_NAME};
use preflight_testkit::{Answer, Matcher, Reply, Script};
use serde_json::json;
use support::agent::*;

const EXECUTOR: TurnScope = TurnScope { agent: Agent::Executor, task_list: true };
const PLANNER: TurnScope = TurnScope { agent: Agent::Planner, task_list: true };

fn executor_prompt() -> String {
    executor_system_prompt(
        DEFAULT_EXECUTOR_PROMPT,
        Some("Run cargo test before you say done."),
        None,
        None,
    )
}

fn planner_prompt() -> String {
    let facts = PlannerFacts {
        workspace: Some("/w".into()),
        sandbox_exists: false,
        context7_available: false,
        round: 1,
        max_question_rounds: 3,
        scope: Vec::new(),
        outcomes: String::new(),
    };
    planner_system_prompt(DEFAULT_PLANNER_PROMPT, None, &facts)
}

#[tokio::test]
async fn an_executor_turn_keeps_its_plan_in_the_store_and_the_state_tail() {
    let script = Script::replies([
        Answer::new().text("Planning first.").tool_call(TOOL_NAME, json!({"op": "init", "tasks": [{"title": "read the routes"}, {"title": "add the export"}, {"title": "test it"}]})).into(),
        Reply::tool_call(TOOL_NAME, json!({"op": "done", "id": 1, "outcome": "two routes"})),
        Reply::text("The export is in place."),
    ]);
    let mut harness = Harness::new(script).await;
    let registry = ToolRegistry::with_builtins(harness.store.clone());
    let tools = registry.offer(&EXECUTOR).await;
    let system = executor_prompt();
    let outcome = harness.run(harness.executor(&system, &tools, 10)).await.unwrap();

    assert_eq!(
        (outcome.end, outcome.rounds, outcome.text.as_str()),
        (TurnEnd::Answered, 2, "The export is in place.")
    );
    let list = harness.store.task_list(&harness.chat_id).unwrap();
    let statuses: Vec<TaskStatus> = list.tasks.iter().map(|task| task.status).collect();
    assert_eq!(statuses, [TaskStatus::Done, TaskStatus::Active, TaskStatus::Pending]);

    let stored = harness.stored_after_user();
    assert_whole_rounds(&stored);
    let roles: Vec<&str> = stored
        .iter()
        .map(|m| match &m.body {
            MessageBody::Assistant { tool_calls, .. } if tool_calls.is_empty() => "answer",
            MessageBody::Assistant { .. } => "round",
            MessageBody::Tool { .. } => "tool",
            MessageBody::User { .. } => "user",
            MessageBody::Compaction { .. } => "compaction",
        })
        .collect();
    assert_eq!(roles, ["round", "tool", "round", "tool", "answer"]);

    let requests = harness.server.requests();
    assert_eq!(requests.len(), 3);
    assert!(requests.iter().all(|r| r.system() == system), "the stable prefix never changes");
    assert!(requests
        .iter()
        .all(|r| !r.system().contains("[state]") && !r.system().contains("plan-questions")));
    assert!(!requests[0].last_message_text().contains("[state]"), "no plan yet, no tail");
    assert!(
        requests[1].last_message_text().ends_with(&format!("[state]\n{}", plan_after_init())),
        "{}",
        requests[1].last_message_text()
    );
    assert!(requests[2].last_message_text().ends_with(&format!("[state]\n{}", list.render())));
    assert_eq!(requests[0].tool_names(), [TOOL_NAME]);

    let events = harness.drain_events();
    let plans: Vec<usize> = events
        .iter()
        .filter_map(|e| match e {
            Event::TaskList { tasks } => Some(tasks.len()),
            _ => None,
        })
        .collect();
    assert_eq!(plans, [3, 3], "a plan event with the whole list after each change");
    let answer_id = &stored[4].id;
    let streamed: String = events
        .iter()
        .filter_map(|e| match e {
            Event::Delta { message_id, text } if message_id == answer_id => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(streamed, "The export is in place.");
    let stored_events = events.iter().filter(|e| matches!(e, Event::Message { .. })).count();
    assert_eq!(stored_events, 5, "a message event per stored message");
    let tool_events = events.iter().filter(|e| matches!(e, Event::Tool { .. })).count();
    assert_eq!(tool_events, 4, "before and after each call");
}

fn plan_after_init() -> String {
    preflight_protocol::tasks::TaskList::from_steps([
        "read the routes",
        "add the export",
        "test it",
    ])
    .unwrap()
    .render()
}

#[tokio::test]
async fn a_quiet_planner_turn_sends_no_event_and_stores_nothing() {
    let fence = "```plan\n{\"title\":\"CSV\",\"aim\":\"a\",\"steps\":[{\"action\":\"x\",\"expected\":\"y\"}]}\n```";
    let script = Script::new().route(
        Matcher::system_contains("plan-questions"),
        [
            Reply::tool_call("mcp_filesystem_read_text_file", json!({"path": "src/routes.rs"})),
            Reply::text(fence),
        ],
    );
    let mut harness = Harness::new(script).await;
    let source = ProfileSource::new(vec!["mcp_filesystem_read_text_file"]);
    let mut registry = ToolRegistry::with_builtins(harness.store.clone());
    registry.register_source(source.clone(), Availability::BOTH);
    let tools = registry.offer(&PLANNER).await;
    let system = planner_prompt();
    let outcome = harness.run(harness.planner(&system, &tools)).await.unwrap();

    assert_eq!((outcome.end, outcome.rounds), (TurnEnd::Answered, 1));
    assert!(outcome.text.contains("```plan"));
    assert_eq!(harness.drain_events(), [], "no delta, no tool, no message event");
    assert_eq!(harness.stored_after_user(), [], "the planner's rounds are never stored");
    assert_eq!(*source.calls.lock().unwrap(), ["mcp_filesystem_read_text_file"]);
    let requests = harness.server.requests();
    assert_eq!(
        requests[0].tool_names(),
        ["mcp_filesystem_read_text_file"],
        "no built-in tool for the planner"
    );
    assert!(!requests[0].body.to_string().contains("draft-07"), "$schema is dropped for providers");
    assert_eq!(outcome.history.len(), 4, "task, round, result, answer");
}

#[tokio::test]
async fn a_hidden_tool_named_by_the_model_is_refused_and_the_loop_goes_on() {
    let script = Script::replies([
        Answer::new()
            .tool_call("mcp_filesystem_write_file", json!({"path": "x", "content": "y"}))
            .tool_call(TOOL_NAME, json!({"op": "init", "tasks": [{"title": "t"}]}))
            .raw_tool_call("mcp_filesystem_read_text_file", "{\"path\": ")
            .into(),
        Reply::text("I can only read while planning."),
    ]);
    let harness = Harness::new(script).await;
    let source = ProfileSource::new(vec!["mcp_filesystem_read_text_file"]);
    let mut registry = ToolRegistry::with_builtins(harness.store.clone());
    registry.register_source(source.clone(), Availability::BOTH);
    let tools = registry.offer(&PLANNER).await;
    let outcome = harness.run(harness.planner(&planner_prompt(), &tools)).await.unwrap();

    assert_eq!(outcome.end, TurnEnd::Answered);
    assert!(
        source.calls.lock().unwrap().is_empty(),
        "the hidden tool never ran; bad JSON never reached the source"
    );
    let second = &harness.server.requests()[1];
    let results: Vec<String> = second
        .messages()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(results.len(), 3);
    assert!(
        results[0].starts_with(
            "Error: the tool \"mcp_filesystem_write_file\" is not available while planning"
        ),
        "{}",
        results[0]
    );
    assert!(results[1].contains("\"turn_plan\" is not available while planning"), "{}", results[1]);
    assert!(results[2].contains("not valid JSON"), "{}", results[2]);
    assert!(harness.store.task_list(&harness.chat_id).unwrap().is_empty());
}

#[tokio::test]
async fn turn_plan_is_offered_only_where_plans_make_sense() {
    let harness = Harness::new(Script::new()).await;
    let registry = ToolRegistry::with_builtins(harness.store.clone());
    let without = registry.offer(&TurnScope { agent: Agent::Executor, task_list: false }).await;
    let with = registry.offer(&EXECUTOR).await;
    assert_eq!((without.names(), with.names()), (vec![], vec![TOOL_NAME]));
}

#[tokio::test]
async fn a_refused_plan_operation_returns_the_error_and_the_plan_as_it_is() {
    let script = Script::replies([
        Reply::tool_call(TOOL_NAME, json!({"op": "start", "id": 9})),
        Reply::text("ok"),
    ]);
    let mut harness = Harness::new(script).await;
    let list = preflight_protocol::tasks::TaskList::from_steps(["a", "b"]).unwrap();
    harness.store.save_task_list(&harness.chat_id, &list).unwrap();
    let tools = ToolRegistry::with_builtins(harness.store.clone()).offer(&EXECUTOR).await;
    harness.run(harness.executor(&executor_prompt(), &tools, 5)).await.unwrap();

    let stored = harness.stored_after_user();
    let MessageBody::Tool { content, is_error: true, .. } = &stored[1].body else {
        panic!("{stored:#?}")
    };
    assert!(content.starts_with("no task 9; live tasks: 1, 2"), "{content}");
    assert!(content.ends_with(&list.render()), "{content}");
    assert_eq!(
        harness.store.task_list(&harness.chat_id).unwrap(),
        list,
        "a refusal changes nothing"
    );
    assert!(!harness.drain_events().iter().any(|e| matches!(e, Event::TaskList { .. })));
}

#[tokio::test]
async fn the_step_limit_ends_the_turn_with_its_last_round_whole() {
    let echo = |n: i32| Reply::tool_call("echo", json!({"n": n}));
    let harness =
        Harness::new(Script::replies([echo(1), echo(2), echo(3), Reply::text("never")])).await;
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Echo), Availability::EXECUTOR);
    let tools = registry.offer(&EXECUTOR).await;
    let outcome = harness.run(harness.executor(&executor_prompt(), &tools, 2)).await.unwrap();

    assert_eq!((outcome.end, outcome.rounds), (TurnEnd::StepLimit, 2));
    assert_eq!(harness.server.requests().len(), 3);
    let stored = harness.stored_after_user();
    assert_whole_rounds(&stored);
    assert_eq!(stored.len(), 6);
    let MessageBody::Tool { content, is_error: true, .. } = &stored[5].body else { panic!() };
    assert_eq!(content, "not run: this turn reached its limit of 2 tool rounds");
}

#[tokio::test]
async fn a_provider_error_ends_the_turn_with_earlier_rounds_stored() {
    let script = Script::replies([
        Reply::tool_call("echo", json!({})),
        Reply::status_with_body(404, r#"{"error":"model \"x\" not found"}"#),
    ]);
    let harness = Harness::new(script).await;
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Echo), Availability::EXECUTOR);
    let tools = registry.offer(&EXECUTOR).await;
    let error = harness.run(harness.executor(&executor_prompt(), &tools, 5)).await.unwrap_err();
    assert!(
        matches!(
            error,
            preflight_agent::AgentError::Provider(preflight_llm::LlmError::Rejected {
                status: 404,
                ..
            })
        ),
        "{error:?}"
    );
    let stored = harness.stored_after_user();
    assert_eq!(stored.len(), 2);
    assert_whole_rounds(&stored);
}

#[tokio::test]
async fn the_loop_speaks_anthropic_too() {
    let script = Script::replies([
        Reply::tool_call(TOOL_NAME, json!({"op": "init", "tasks": ["one", "two", "three"]})),
        Reply::text("Done."),
    ]);
    let harness = Harness::with_kind(script, preflight_llm::ProviderKind::Anthropic).await;
    let tools = ToolRegistry::with_builtins(harness.store.clone()).offer(&EXECUTOR).await;
    let outcome = harness.run(harness.executor(&executor_prompt(), &tools, 5)).await.unwrap();
    assert_eq!(outcome.text, "Done.");
    let second = &harness.server.requests()[1];
    let last = second.messages().last().cloned().unwrap();
    assert_eq!(last["role"], "user");
    assert_eq!(last["content"][0]["type"], "tool_result");
    assert!(last["content"][0]["content"]
        .as_str()
        .unwrap()
        .contains("\n\n[state]\n[plan] Your plan"));
    assert_eq!(second.body["system"][0]["text"], executor_prompt());
}
