//! When planning does not give a card (DESIGN §2 "neither"): no fence, an unreadable fence
//! after one repair, a provider error, questions past the last round, a user's stop. The
//! managed profile always comes back; a stop executes nothing.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::json;
use support::script::{anyone, plan, planner, questions};
use support::{openai_config, Serve};

async fn start(script: Script) -> (ScriptedServer, Serve, String) {
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({})).await;
    (provider, serve, id)
}

fn executor_count(provider: &ScriptedServer) -> usize {
    provider.requests().iter().filter(|r| !r.system().contains("plan-questions")).count()
}

#[tokio::test]
async fn a_planner_without_a_fence_hands_over_to_the_executor() {
    let script = Script::new()
        .route(planner(), [Reply::text("This is a one-line fix; no plan needed.")])
        .route(anyone(), [Reply::text("Fixed the typo.")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Fix the typo"})).await;
    events.wait_for_phase("idle").await;
    let chat = serve.chat(&id).await;
    let contents: Vec<&str> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents, ["Fix the typo", "Fixed the typo."]);
    assert_eq!(executor_count(&provider), 1);
    assert_eq!(chat["state"]["plan"], json!(null));
}

#[tokio::test]
async fn an_unreadable_fence_gets_one_repair_attempt() {
    let broken = Reply::text("```plan\n{\"title\": \"x\" \"steps\": []}\n```");
    let script = Script::new()
        .route(planner(), [broken, plan("Repaired", &["step"])])
        .route(anyone(), [Reply::text("ok")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Plan it"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert!(
        requests[1].last_message_text().contains("invalid JSON"),
        "the planner is shown the parse error"
    );
    assert_eq!(serve.chat(&id).await["state"]["plan"]["title"], "Repaired");
}

#[tokio::test]
async fn an_unreadable_fence_twice_falls_back_to_execution() {
    let broken = || Reply::text("```plan-questions\n{oops\n```");
    let script = Script::new()
        .route(planner(), [broken(), broken()])
        .route(anyone(), [Reply::text("Did it anyway.")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("idle").await;
    assert_eq!(executor_count(&provider), 1);
    let chat = serve.chat(&id).await;
    assert_eq!(chat["messages"].as_array().unwrap().last().unwrap()["content"], "Did it anyway.");
    let notice = said_before_execution(&chat);
    assert!(notice.contains("could not be read, twice"), "{notice}");
}

/// The chat's notice that the planner failed, said before the executor's first word.
fn said_before_execution(chat: &serde_json::Value) -> String {
    let messages = chat["messages"].as_array().unwrap();
    let contents: Vec<&str> = messages.iter().map(|m| m["content"].as_str().unwrap()).collect();
    let notice = contents
        .iter()
        .position(|text| text.starts_with("The planner could not make a plan"))
        .unwrap_or_else(|| panic!("the planner's failure is said in the chat: {contents:#?}"));
    assert_eq!(messages[notice]["role"], "assistant");
    assert_eq!(notice, 1, "right after the user's message, before the executor: {contents:#?}");
    // Typed, so that each client says it in its own words with its action.
    assert_eq!(messages[notice]["notice"]["kind"], "planner_failed", "{:#?}", messages[notice]);
    assert_eq!(messages[notice]["notice"]["went_on"], true);
    contents[notice].to_owned()
}

#[tokio::test]
async fn with_on_planner_failure_stop_a_failed_planner_runs_nothing_and_says_so() {
    let script = Script::new()
        .route(planner(), [Reply::status(500), Reply::status(500), Reply::status(500)])
        .route(planner(), [plan("Second try", &["Do it"])])
        .route(anyone(), [Reply::text("Must not run.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let config = format!(
        "{}\n[plan_mode]\non_planner_failure = \"stop\"\n",
        openai_config(&provider.openai_url())
    );
    let serve = Serve::start(&config);
    let id = serve.create_chat(json!({})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("idle").await;
    assert_eq!(executor_count(&provider), 0, "nothing ran without a plan");
    let chat = serve.chat(&id).await;
    let last = chat["messages"].as_array().unwrap().last().unwrap().clone();
    let text = last["content"].as_str().unwrap();
    assert!(
        text.starts_with("The planner could not make a plan") && text.contains("Nothing was run"),
        "{last}"
    );
    assert!(text.contains("HTTP 500"), "what failed is said: {text}");

    // The message sent again plans again.
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go, please"})).await;
    events.wait_for_phase("awaiting_approval").await;
    assert_eq!(serve.chat(&id).await["state"]["plan"]["title"], "Second try");
    assert_eq!(executor_count(&provider), 0);
}

#[tokio::test]
async fn a_provider_error_during_planning_falls_back_with_the_managed_profile() {
    let script = Script::new()
        .route(planner(), [Reply::status(500), Reply::status(500), Reply::status(500)])
        .route(anyone(), [Reply::text("Executed without a plan.")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("idle").await;
    let executor = provider
        .requests()
        .into_iter()
        .find(|r| !r.system().contains("plan-questions"))
        .expect("the executor ran");
    assert_eq!(
        executor.tool_names(),
        ["turn_plan", "plan_status"],
        "a plan-mode chat without a workspace: turn_plan and plan_status only"
    );
    assert_eq!(serve.get(&format!("/v1/chats/{id}/profile")).await.1["name"], "execution");
    let chat = serve.chat(&id).await;
    assert_eq!(
        chat["messages"].as_array().unwrap().last().unwrap()["content"],
        "Executed without a plan."
    );
    let notice = said_before_execution(&chat);
    assert!(notice.contains("HTTP 500") && notice.contains("Going ahead without one"), "{notice}");
}

#[tokio::test]
async fn when_the_executor_fails_too_the_chat_says_so() {
    // The planner's provider fails on its side (HTTP 500), so execution is tried, and fails.
    let script = Script::new()
        .route(planner(), [Reply::status(500), Reply::status(500), Reply::status(500)])
        .forever(anyone(), Reply::status_with_body(401, "{\"error\":{\"message\":\"bad key\"}}"));
    let (_provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for("an error event", |name, _| name == "error").await;
    events.wait_for_phase("idle").await;
    let chat = serve.chat(&id).await;
    let last = chat["messages"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["role"], "assistant");
    assert!(last["content"].as_str().unwrap().to_lowercase().contains("model"), "{last}");
}

#[tokio::test]
async fn questions_past_the_third_round_are_dropped_for_execution() {
    let ask = || questions(&[("q1", "Again?", ["a", "b", "c"])]);
    let script = Script::new()
        .route(planner(), [ask(), ask(), ask(), ask()])
        .route(anyone(), [Reply::text("Went ahead.")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    for round in 1..=3 {
        events.wait_for_phase("questions").await;
        let (status, _) = serve
            .post(
                &format!("/v1/chats/{id}/answers"),
                json!({"question_id": "q1", "answer": format!("answer {round}")}),
            )
            .await;
        assert_eq!(status, 202);
    }
    events.wait_for_phase("idle").await;
    let planner_requests: Vec<_> =
        provider.requests().into_iter().filter(|r| r.system().contains("plan-questions")).collect();
    assert_eq!(planner_requests.len(), 4);
    assert!(planner_requests[3].system().contains("must now give a `plan`"));
    assert_eq!(executor_count(&provider), 1);
    let chat = serve.chat(&id).await;
    assert_eq!(chat["state"]["plan_pending"], json!(null));
}

#[tokio::test]
async fn a_stop_during_planning_executes_nothing_and_restores_the_managed_profile() {
    let script = Script::new()
        .route(planner(), [Answer::new().text("thinking").stall().into()])
        .route(anyone(), [Reply::text("never")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    assert_eq!(serve.get(&format!("/v1/chats/{id}/profile")).await.1["name"], "planning");
    let (status, again) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Hurry"})).await;
    assert_eq!((status, again["error"]["code"].as_str()), (409, Some("ERR_TURN_ACTIVE")));
    let (status, stopped) = serve.post(&format!("/v1/chats/{id}/stop"), json!(null)).await;
    assert_eq!(status, 200);
    assert_eq!(stopped["state"]["phase"], "idle");
    events.wait_for_phase("idle").await;
    assert_eq!(serve.get(&format!("/v1/chats/{id}/profile")).await.1["name"], "execution");
    assert_eq!(executor_count(&provider), 0);
    assert_eq!(stopped["messages"].as_array().unwrap().len(), 1, "only the user's message");
}

#[tokio::test]
async fn a_plan_card_survives_a_restart_and_can_be_approved_after_it() {
    let script = Script::new()
        .route(planner(), [plan("Durable", &["one", "two"])])
        .route(anyone(), [Reply::text("done")]);
    let (provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let before = serve.chat(&id).await;
    let serve = Serve::start_in(serve.stop());
    assert_eq!(serve.chat(&id).await, before);
    let mut events = serve.events(&id).await;
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
    assert_eq!(executor_count(&provider), 1);
}

#[tokio::test]
async fn pending_questions_and_an_open_task_list_survive_a_restart() {
    let script = Script::new()
        .route(
            planner(),
            [questions(&[("q1", "Which?", ["a", "b", "c"])]), plan("P", &["one", "two"])],
        )
        .route(anyone(), [Reply::text("stopping halfway")]);
    let (_provider, serve, id) = start(script).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("questions").await;
    let serve = Serve::start_in(serve.stop());
    let chat = serve.chat(&id).await;
    assert_eq!(chat["state"]["phase"], "questions");
    assert_eq!(chat["state"]["plan_pending"]["questions"][0]["id"], "q1");
    let mut events = serve.events(&id).await;
    serve
        .post(&format!("/v1/chats/{id}/answers"), json!({"question_id": "q1", "answer": "a"}))
        .await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events.wait_for_phase("idle").await;
    let tasks = serve.get(&format!("/v1/chats/{id}/plan")).await.1;
    assert_eq!(tasks["tasks"].as_array().unwrap().len(), 2, "work left stays: {tasks}");
    let serve = Serve::start_in(serve.stop());
    assert_eq!(serve.get(&format!("/v1/chats/{id}/plan")).await.1, tasks);
    assert_eq!(serve.chat(&id).await["state"]["plan"]["approval"], "approved");
}

#[tokio::test]
async fn a_provider_that_cannot_be_reached_is_said_once_and_nothing_runs() {
    // A port nobody listens on: the planner's provider, which is the executor's too.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let serve = Serve::start(&openai_config(&format!("http://127.0.0.1:{port}/v1")));
    let id = serve.create_chat(json!({})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    let error = events.wait_for("the error", |name, _| name == "error").await;
    events.wait_for_phase("idle").await;

    assert_eq!(error["code"], "ERR_PROVIDER_UNAVAILABLE", "{error}");
    let chat = serve.chat(&id).await;
    let contents: Vec<&str> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap())
        .collect();
    assert_eq!(contents.len(), 2, "the message and one notice, said once: {contents:#?}");
    assert!(
        contents[1].starts_with("The model provider could not be used")
            && contents[1].contains("Nothing was run"),
        "{contents:#?}"
    );
    let notice = &chat["messages"][1]["notice"];
    assert_eq!(
        (notice["kind"].as_str(), notice["code"].as_str()),
        (Some("provider_refused"), Some("ERR_PROVIDER_UNAVAILABLE")),
        "{notice}"
    );
    let errors = events.seen.iter().filter(|(name, _)| name == "error").count();
    assert_eq!(errors, 1, "one error event: {:?}", events.seen);
    assert!(
        !events.seen.iter().any(|(_, data)| data["phase"] == "executing"),
        "the executor never started: {:?}",
        events.seen
    );
}
