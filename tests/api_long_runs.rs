//! Work that finishes: a long productive turn is not cut by a small cap; a turn that ends
//! with tasks left says why (`state.stopped`, the `executor_stopped` event) and finishes
//! after `POST /v1/chats/{id}/continue`; a looping model is stopped as a loop; a turn that
//! changes nothing ends after its window; `[executor] auto_continue` resumes by itself; and a
//! chat whose planning was cancelled plans again on its next message.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, EventStream, Serve};
use tempfile::TempDir;

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

fn turn_plan(arguments: Value) -> Reply {
    call("turn_plan", arguments)
}

fn serve_with(provider: &ScriptedServer, extra_config: &str) -> Serve {
    let home = tempfile::tempdir().unwrap();
    let config = format!("{}\n{extra_config}", openai_config(&provider.openai_url()));
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    Serve::start_in(home)
}

/// A plan-mode chat on a fresh workspace, its first message sent and its plan approved; the
/// events from before the message on.
async fn approved(serve: &Serve) -> (TempDir, String, EventStream) {
    let workspace = tempfile::tempdir().unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do the work"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    (workspace, id, events)
}

/// The last request's messages the executor was sent.
fn last_messages(provider: &ScriptedServer) -> Vec<Value> {
    let last = provider.requests().into_iter().last().expect("a request");
    last.body["messages"].as_array().cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn sixty_productive_rounds_finish_under_the_default_config() {
    // 30 rounds add a task each, 30 finish one each, then the plan's own step: 61 rounds,
    // every one changing the task list. The default config's hard cap is far above.
    let mut executor: Vec<Reply> = (1..=30)
        .map(|n| turn_plan(json!({"op": "add", "tasks": [{"title": format!("part {n}")}]})))
        .collect();
    executor.extend((2..=31).map(|id| turn_plan(json!({"op": "done", "id": id}))));
    executor.push(turn_plan(json!({"op": "done", "id": 1, "outcome": "all parts in"})));
    executor.push(Reply::text("Every part is in."));
    let script = Script::new()
        .route(planner(), [plan("Many parts", &["Put every part in"])])
        .route(anyone(), executor);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let (_workspace, id, mut events) = approved(&serve).await;
    let completion = events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;

    assert_eq!(completion["completion"]["summary"], "Every part is in.");
    assert_eq!(completion["completion"]["adherence"]["added"], 30);
    assert_eq!(completion["completion"]["stops_and_continues"], json!([]));
    let chat = serve.chat(&id).await;
    assert_eq!(chat["state"]["stopped"], Value::Null);
    // More than the view's latest page: every message, in one page of up to 500.
    let (_, every) = serve.get(&format!("/v1/chats/{id}/messages?limit=500")).await;
    assert_eq!(every["next_cursor"], Value::Null);
    let rounds = every["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m["tool_calls"].is_array())
        .count();
    assert_eq!(rounds, 61, "61 tool rounds, none refused");
    assert!(!events.seen.iter().any(|(name, _)| name == "executor_stopped" || name == "error"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_turn_that_stops_on_a_failing_gate_says_why_and_finishes_after_continue() {
    let failing = "echo 'the parser is broken' >&2; exit 3";
    let script = Script::new()
        .route(planner(), [plan("Two steps", &["Write the parser", "Prove the parser"])])
        .route(
            anyone(),
            [
                turn_plan(json!({"op": "done", "id": 1, "outcome": "written"})),
                turn_plan(json!({"op": "done", "id": 2, "gate": {"command": failing}})),
                Reply::text("The check fails; I stop here."),
                turn_plan(json!({"op": "done", "id": 2, "gate": {"command": "true"}})),
                Reply::text("Both steps are done."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let (_workspace, id, mut events) = approved(&serve).await;
    let stopped = events.wait_for("the stop", |name, _| name == "executor_stopped").await;
    events.wait_for_phase("idle").await;

    let stop = &stopped["stopped"];
    assert_eq!(stop["reason"], "gate_failed", "{stop}");
    assert_eq!(
        stop["tasks_left"],
        json!([{"id": 2, "title": "Prove the parser", "status": "active"}])
    );
    assert_eq!(
        (stop["gate"]["task"].as_u64(), stop["gate"]["exit_code"].as_i64()),
        (Some(2), Some(3))
    );
    assert!(stop["gate"]["evidence"].as_str().unwrap().contains("the parser is broken"), "{stop}");
    let chat = serve.chat(&id).await;
    assert_eq!((&chat["state"]["stopped"], &chat["state"]["phase"]), (stop, &json!("idle")));

    let (status, view) = serve.post(&format!("/v1/chats/{id}/continue"), json!(null)).await;
    assert_eq!(status, 202, "{view}");
    let resumed = view["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(
        (resumed["role"].as_str(), &resumed["resume"]),
        (Some("user"), &json!({"reason": "gate_failed", "auto": false}))
    );
    assert_eq!(view["state"]["stopped"], Value::Null, "a Continue clears the stop");
    let completion = events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;

    check_the_continue_told_the_model(&provider);
    let log = &completion["completion"]["stops_and_continues"];
    assert_eq!(log.as_array().unwrap().len(), 2, "{log}");
    assert_eq!(
        (log[0]["kind"].as_str(), log[0]["reason"].as_str()),
        (Some("stopped"), Some("gate_failed"))
    );
    assert_eq!(
        (log[1]["kind"].as_str(), log[1]["auto"].as_bool()),
        (Some("continued"), Some(false))
    );

    let (status, body) = serve.post(&format!("/v1/chats/{id}/continue"), json!(null)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("ERR_NOTHING_LEFT")));
}

/// The Continue the model read: Preflight's words as the user's, and its record of the stop
/// — the open task and the failing check's evidence — as the result of `preflight_record`,
/// never in a user message (issue 46).
fn check_the_continue_told_the_model(provider: &ScriptedServer) {
    let told = last_messages(provider);
    let continue_text = told
        .iter()
        .rev()
        .filter(|m| m["role"] == "user")
        .find_map(|m| m["content"].as_str())
        .unwrap()
        .to_owned();
    assert!(continue_text.starts_with("Continue the approved plan"), "{continue_text}");
    for user in told.iter().filter(|m| m["role"] == "user") {
        assert!(!user.to_string().contains("the parser is broken"), "{user}");
    }
    let record = told
        .iter()
        .rev()
        .filter(|m| m["role"] == "tool")
        .filter(|m| m["tool_call_id"].as_str().is_some_and(|id| id.starts_with("preflight_record")))
        .find_map(|m| m["content"].as_str())
        .expect("Preflight's record of the stop");
    let record: Value =
        serde_json::Deserializer::from_str(record).into_iter().next().unwrap().unwrap();
    assert_eq!(record["open_tasks"], json!([{"id": 2, "title": "Prove the parser"}]), "{record:#}");
    let evidence = record["failing_check"]["output"].as_str().unwrap();
    assert!(
        evidence.contains("the parser is broken"),
        "the model is told the evidence: {record:#}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_looping_model_is_stopped_as_a_loop_within_three_repeats() {
    let same = turn_plan(json!({"op": "start", "id": 1}));
    let script = Script::new().route(planner(), [plan("Loop", &["Spin"])]).forever(anyone(), same);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let (_workspace, id, mut events) = approved(&serve).await;
    let stopped = events.wait_for("the stop", |name, _| name == "executor_stopped").await;
    events.wait_for_phase("idle").await;

    assert_eq!(stopped["stopped"]["reason"], "loop");
    assert!(stopped["stopped"]["text"].as_str().unwrap().contains("`turn_plan`"), "{stopped}");
    let executor_requests = provider.requests().len() - 1;
    assert_eq!(executor_requests, 3, "two calls ran, the third was refused as a loop");
    let chat = serve.chat(&id).await;
    let results: Vec<&Value> =
        chat["messages"].as_array().unwrap().iter().filter(|m| m["role"] == "tool").collect();
    assert_eq!(results.len(), 3);
    assert!(results[2]["content"].as_str().unwrap().contains("as a loop"), "{:?}", results[2]);
    assert_eq!(results[2]["is_error"], true);
}

#[tokio::test(flavor = "multi_thread")]
async fn rounds_that_change_nothing_end_the_turn_after_the_configured_window() {
    let script = Script::new()
        .route(planner(), [plan("Look around", &["Look"])])
        .route(anyone(), (1..=10).map(|n| call(&format!("look_{n}"), json!({}))));
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "[executor]\nno_progress_rounds = 4\n");
    let (_workspace, _id, mut events) = approved(&serve).await;
    let stopped = events.wait_for("the stop", |name, _| name == "executor_stopped").await;

    assert_eq!(stopped["stopped"]["reason"], "no_progress", "{stopped}");
    assert_eq!(provider.requests().len() - 1, 4, "four rounds without progress, then the stop");
}

#[tokio::test(flavor = "multi_thread")]
async fn rounds_that_only_write_files_are_progress_too() {
    // Six rounds write a file each and leave the task list alone: past a window of 3, the
    // turn goes on because the workspace changed.
    let workspace = tempfile::tempdir().unwrap();
    let mut executor: Vec<Reply> = (1..=6)
        .map(|n| {
            let path = workspace.path().join(format!("part{n}.txt"));
            call("mcp_filesystem_write_file", json!({"path": path, "content": format!("part {n}")}))
        })
        .collect();
    executor.push(turn_plan(json!({"op": "done", "id": 1})));
    executor.push(Reply::text("Six parts written."));
    let script = Script::new()
        .route(planner(), [plan("Parts", &["Write six parts"])])
        .route(anyone(), executor);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "[executor]\nno_progress_rounds = 3\n");
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    let events = serve.plan_approve_and_run(&id, "Write six parts").await;
    assert!(events.seen.iter().any(|(name, _)| name == "completion"), "{:?}", events.seen);

    assert!(workspace.path().join("part6.txt").is_file());
    assert!(!events.seen.iter().any(|(name, _)| name == "executor_stopped"), "{:?}", events.seen);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_review_that_reads_thirty_files_finishes_under_the_default_settings() {
    // Thirty rounds that each read a file not read before, and change nothing: a review is
    // work, and the default window of 12 rounds does not stop it halfway (issue 48).
    let workspace = tempfile::tempdir().unwrap();
    let mut executor: Vec<Reply> = (1..=30)
        .map(|n| {
            let path = workspace.path().join(format!("module{n}.py"));
            std::fs::write(&path, format!("def f{n}():\n    return {n}\n")).unwrap();
            call("mcp_filesystem_read_text_file", json!({ "path": path }))
        })
        .collect();
    executor.push(turn_plan(json!({"op": "done", "id": 1, "outcome": "30 modules read"})));
    executor.push(Reply::text("All thirty modules are fine."));
    let script = Script::new()
        .route(planner(), [plan("Review", &["Read every module"])])
        .route(anyone(), executor);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    let events = serve.plan_approve_and_run(&id, "Review the modules").await;

    assert!(!events.seen.iter().any(|(name, _)| name == "executor_stopped"), "{:?}", events.seen);
    assert!(events.seen.iter().any(|(name, _)| name == "completion"), "{:?}", events.seen);
    let chat = serve.chat(&id).await;
    let read_ok = chat["messages"].as_array().unwrap().iter().filter(|m| {
        m["role"] == "tool"
            && m["is_error"] == false
            && m["content"].as_str().unwrap_or("").contains("return")
    });
    assert_eq!(read_ok.count(), 30, "every read answered");
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_continue_resumes_by_itself_and_says_so() {
    let script = Script::new().route(planner(), [plan("Two steps", &["First", "Second"])]).route(
        anyone(),
        [
            turn_plan(json!({"op": "done", "id": 1})),
            Reply::text("Pausing here."),
            turn_plan(json!({"op": "done", "id": 2})),
            Reply::text("Done."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "[executor]\nauto_continue = 2\n");
    let (_workspace, id, mut events) = approved(&serve).await;
    let completion = events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;

    let resumed: Vec<&Value> = events
        .seen
        .iter()
        .filter(|(name, data)| name == "message" && data["message"]["resume"].is_object())
        .map(|(_, data)| &data["message"])
        .collect();
    assert_eq!(resumed.len(), 1, "one resume was needed");
    assert_eq!(resumed[0]["resume"], json!({"reason": "answered", "auto": true}));
    let log = &completion["completion"]["stops_and_continues"];
    assert_eq!(log[1], json!({"kind": "continued", "auto": true, "at": log[1]["at"]}));
    let phases: Vec<&str> = events
        .seen
        .iter()
        .filter(|(name, _)| name == "plan_status")
        .filter_map(|(_, data)| data["phase"].as_str())
        .collect();
    assert_eq!(
        phases.iter().filter(|p| **p == "idle").count(),
        1,
        "one turn, resumed inside it: {phases:?}"
    );
    assert_eq!(serve.chat(&id).await["state"]["stopped"], Value::Null);
}

#[tokio::test(flavor = "multi_thread")]
async fn continue_is_refused_without_open_tasks_or_while_a_turn_runs_and_changes_nothing() {
    let script = Script::new()
        .route(planner(), [plan("Wait", &["Wait"])])
        .route(anyone(), [Answer::new().text("Working").stall().into()]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let fresh = serve.create_chat(json!({"plan_mode": false})).await;
    let (status, body) = serve.post(&format!("/v1/chats/{fresh}/continue"), json!(null)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("ERR_NOTHING_LEFT")));
    assert_eq!(serve.chat(&fresh).await["messages"], json!([]));
    let (status, _) = serve.post("/v1/chats/nope/continue", json!(null)).await;
    assert_eq!(status, 404);

    let (_workspace, id, mut events) = approved(&serve).await;
    events.wait_for("the first delta", |name, _| name == "delta").await;
    let before = serve.chat(&id).await["messages"].as_array().unwrap().len();
    let (status, body) = serve.post(&format!("/v1/chats/{id}/continue"), json!(null)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (409, Some("ERR_TURN_ACTIVE")));
    assert_eq!(serve.chat(&id).await["messages"].as_array().unwrap().len(), before);

    serve.post(&format!("/v1/chats/{id}/stop"), json!(null)).await;
    let chat = serve.chat(&id).await;
    assert_eq!(chat["state"]["stopped"]["reason"], "user_stop", "{}", chat["state"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancelled_chat_plans_again_on_its_next_message() {
    let script = Script::new()
        .route(planner(), [plan("First idea", &["A"]), plan("Second idea", &["B"])])
        .route(anyone(), [Reply::text("unused")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "");
    let id = serve.create_chat(json!({"save_plans": false})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Build A"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/cancel"), json!(null)).await;
    assert_eq!(status, 200);
    let profile = serve.get(&format!("/v1/chats/{id}/profile")).await.1;
    assert_eq!(profile["name"], "planning", "the next turn plans: {profile}");

    let (status, view) = serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Build B instead"}))
        .await;
    assert_eq!((status, view["state"]["phase"].as_str()), (202, Some("planning")));
    events.wait_for_phase("awaiting_approval").await;
    let chat = serve.chat(&id).await;
    assert_eq!(chat["state"]["plan"]["title"], "Second idea");
    assert_eq!(chat["state"]["plan_pending"], Value::Null);
    let planner_saw = &provider.requests()[1].body.to_string();
    assert!(planner_saw.contains("Build B instead"), "the planner reads the new message");
    assert_eq!(provider.requests().len(), 2, "both requests were the planner's; nothing ran");
}
