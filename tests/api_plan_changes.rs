//! The approved plan is a contract (DESIGN §12), through the API with the scripted
//! provider: the executor's drop, rewording or replacement of plan steps waits for the user,
//! the answer resumes the work, auto-approve chats apply and record, own tasks stay free,
//! and the completion record's figures come from the task history.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::events::EventStream;
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

fn turn_plan(arguments: Value) -> Reply {
    Reply::tool_call("turn_plan", arguments)
}

/// Starts a chat on `steps`, approves the plan (unless the chat approves itself) and waits
/// for the executor's first turn to end.
async fn approved_chat(serve: &Serve, chat: Value) -> (String, EventStream) {
    let auto = chat["auto_approve"] == true;
    let id = serve.create_chat(chat).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do the work"})).await;
    if !auto {
        events.wait_for_phase("awaiting_approval").await;
        let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
        assert_eq!(status, 202);
    }
    events.wait_for_phase("idle").await;
    (id, events)
}

async fn changes(serve: &Serve, id: &str) -> Vec<Value> {
    let (status, body) = serve.get(&format!("/v1/chats/{id}/plan/changes")).await;
    assert_eq!(status, 200, "{body}");
    body["changes"].as_array().unwrap().clone()
}

async fn statuses(serve: &Serve, id: &str) -> Vec<(u64, String)> {
    let (_, view) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    let tasks = view["tasks"].as_array().unwrap();
    tasks
        .iter()
        .map(|t| (t["id"].as_u64().unwrap(), t["status"].as_str().unwrap().into()))
        .collect()
}

fn tool_results(request: &preflight_testkit::RecordedRequest) -> String {
    request.body["messages"].to_string()
}

/// The first test's change after its first turn: not applied, the step still open, the
/// model told so, the chat's view carrying it.
async fn waiting_drop(serve: &Serve, id: &str, provider: &ScriptedServer) -> Value {
    let waiting = changes(serve, id).await;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let change = waiting[0].clone();
    assert_eq!((change["kind"].clone(), change["task"].clone()), (json!("drop"), json!(2)));
    assert_eq!(change["status"], "pending");
    assert_eq!(change["reason"], "not needed after all");
    assert_eq!(change["title"], "Change");
    assert_eq!(
        statuses(serve, id).await,
        [(1, "done".into()), (2, "active".into()), (3, "pending".into())]
    );
    let told = tool_results(&provider.requests()[2]);
    assert!(told.contains("waits for the user"), "{told}");
    let view = serve.chat(id).await;
    assert_eq!(view["state"]["changes"][0]["id"], change["id"], "the chat view carries it");
    change
}

#[tokio::test]
async fn a_dropped_step_waits_and_keeping_the_plan_resumes_the_work_to_completion() {
    let script =
        Script::new().route(planner(), [plan("Three steps", &["Read", "Change", "Check"])]).route(
            anyone(),
            [
                turn_plan(json!({"op": "drop", "id": 2, "outcome": "not needed after all"})),
                turn_plan(json!({"op": "done", "id": 1})),
                Reply::text("Step 2 waits for your answer."),
                turn_plan(json!({"op": "done", "id": 2})),
                turn_plan(json!({"op": "done", "id": 3})),
                Reply::text("All three steps are done."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, mut events) = approved_chat(&serve, json!({})).await;

    let change = waiting_drop(&serve, &id, &provider).await;

    let cid = change["id"].as_str().unwrap();
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/reject"), json!(null)).await;
    assert_eq!(status, 202);
    events
        .wait_for("the answered change", |name, data| {
            name == "plan_change" && data["change"]["status"] == "rejected"
        })
        .await;
    let record = events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;
    let resumed = tool_results(&provider.requests()[4]);
    assert!(resumed.contains("Keep the plan"), "the executor read the user's answer: {resumed}");

    let completion = &record["completion"];
    assert_eq!(completion["summary"], "All three steps are done.");
    assert_eq!(
        completion["adherence"],
        json!({"steps": 3, "done_as_planned": 3, "modified": 0, "dropped": 0, "added": 0, "in_order": true})
    );
    assert_eq!(completion["deviations"], json!([]));
    let view = serve.chat(&id).await;
    assert_eq!(view["state"]["completion"], *completion, "stored in the chat's state");
    assert_eq!(view["state"]["changes"][0]["status"], "rejected");
    let (_, panel) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(panel["tasks"], json!([]), "the finished list is closed");
}

#[tokio::test]
async fn reworded_and_dropped_steps_make_revisions_and_the_record_counts_every_departure() {
    let steps = ["Read the logs", "Fix the parser", "Write the docs", "Tag the release"];
    let script = Script::new().route(planner(), [plan("Parser fix", &steps)]).route(
        anyone(),
        [
            turn_plan(json!({"op": "add", "tasks": [{"title": "Fix the flaky test", "priority": "high"}]})),
            turn_plan(json!({"op": "done", "id": 1})),
            turn_plan(json!({"op": "done", "id": 3})),
            turn_plan(json!({"op": "modify", "id": 2, "title": "Fix the parser and its tests", "reason": "the tests are wrong too"})),
            Reply::text("The rewording of step 2 waits for you."),
            turn_plan(json!({"op": "done", "id": 2})),
            turn_plan(json!({"op": "drop", "id": 5, "outcome": "it was the parser"})),
            turn_plan(json!({"op": "drop", "id": 4, "outcome": "no release this week"})),
            Reply::text("Everything but the release is done."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, mut events) = approved_chat(&serve, json!({})).await;

    let (_, panel) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    let own = &panel["tasks"].as_array().unwrap().iter().find(|t| t["id"] == 5).unwrap().clone();
    assert_eq!(
        (own["origin"].clone(), own["priority"].clone()),
        (json!("executor"), json!("high"))
    );
    assert_eq!(panel["tasks"][0]["origin"], "plan");
    check_terminal_drawing(&serve, &id);
    let modify = changes(&serve, &id).await.remove(0);
    assert_eq!(modify["kind"], "modify");
    assert_eq!(modify["new_title"], "Fix the parser and its tests");
    let cid = modify["id"].as_str().unwrap().to_owned();
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;

    // The own task's drop applied freely; the plan step's drop waits.
    let all = changes(&serve, &id).await;
    assert_eq!(all.len(), 2, "{all:?}");
    assert_eq!(
        (all[0]["status"].clone(), all[0]["revision"].clone()),
        (json!("approved"), json!(2))
    );
    assert_eq!((all[1]["kind"].clone(), all[1]["task"].clone()), (json!("drop"), json!(4)));
    let cid = all[1]["id"].as_str().unwrap().to_owned();
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(status, 202);
    let record = events.wait_for("the completion", |name, _| name == "completion").await;

    check_departures(&record["completion"]);
    check_executor_revisions(&serve, &id).await;
}

/// `preflight tasks` beside the running server: the list as seed 001 draws it, in plain text
/// on a pipe (and with `NO_COLOR`), the step whose rewording waits marked.
fn check_terminal_drawing(serve: &Serve, id: &str) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["tasks", id])
        .env("PREFLIGHT_HOME", serve.home_path())
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let drawn = String::from_utf8(output.stdout).unwrap();
    assert!(!drawn.contains('\x1b'), "no escape codes on a pipe: {drawn:?}");
    let lines: Vec<&str> = drawn.lines().map(str::trim_end).collect();
    assert_eq!(
        lines[1..],
        [
            "  ✓ Read the logs",
            "  ▶ Fix the parser [change asked: waits for the user]",
            "  ✓ Write the docs",
            "  ○ Tag the release",
            "  ○ Fix the flaky test (high priority; added by the executor)",
            "",
            "2 of 5 done",
            "stopped: The model ended its turn with tasks still open.",
            &format!("  continue: POST /v1/chats/{id}/continue, or Continue in the window"),
        ],
        "{drawn}"
    );
}

/// The second test's record: every departure counted, each named.
fn check_departures(completion: &Value) {
    assert_eq!(
        completion["adherence"],
        json!({"steps": 4, "done_as_planned": 2, "modified": 1, "dropped": 1, "added": 1, "in_order": false}),
        "{completion:#}"
    );
    let kinds: Vec<(String, u64)> = completion["deviations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["kind"].as_str().unwrap().to_owned(), d["task"].as_u64().unwrap()))
        .collect();
    let expected = [("modified", 2), ("dropped", 4), ("added", 5), ("out_of_order", 3)];
    assert_eq!(kinds, expected.map(|(k, t)| (k.to_owned(), t)), "{completion:#}");
    assert_eq!(completion["summary"], "Everything but the release is done.");
    assert_eq!(completion["planned"][1]["title"], "Fix the parser", "as approved");
    let tasks = completion["tasks"].as_array().unwrap();
    assert!(tasks.iter().all(|t| t["created_at"].is_string() && t["updated_at"].is_string()));
}

/// The planner's revision, then one per approved change, made by the executor.
async fn check_executor_revisions(serve: &Serve, id: &str) {
    let (_, revisions) = serve.get(&format!("/v1/chats/{id}/plan/revisions")).await;
    let revisions = revisions["revisions"].as_array().unwrap();
    assert_eq!(revisions.len(), 3, "the planner's, then one per approved change");
    assert_eq!(revisions[0]["author"], "planner");
    assert_eq!(revisions[2]["author"], "executor");
    let actions: Vec<&str> = revisions[2]["steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["Read the logs", "Fix the parser and its tests", "Write the docs"]);
    assert_eq!(revisions[2]["steps"][0]["expected"], "Read the logs is done", "kept");
}

#[tokio::test]
async fn an_auto_approve_chat_applies_a_change_at_once_and_records_it() {
    let script = Script::new().route(planner(), [plan("Two steps", &["One", "Two"])]).route(
        anyone(),
        [
            turn_plan(json!({"op": "drop", "id": 2, "outcome": "step one covers it"})),
            turn_plan(json!({"op": "done", "id": 1})),
            Reply::text("Done with one step."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, _events) = approved_chat(&serve, json!({"auto_approve": true})).await;

    let all = changes(&serve, &id).await;
    assert_eq!(all.len(), 1);
    assert_eq!(
        (all[0]["status"].clone(), all[0]["auto_approved"].clone(), all[0]["revision"].clone()),
        (json!("approved"), json!(true), json!(2))
    );
    let told = tool_results(&provider.requests()[2]);
    assert!(told.contains("applied and recorded"), "{told}");
    let view = serve.chat(&id).await;
    let adherence = &view["state"]["completion"]["adherence"];
    assert_eq!(
        (adherence["done_as_planned"].clone(), adherence["dropped"].clone()),
        (json!(1), json!(1))
    );
}

#[tokio::test]
async fn a_replacement_waits_and_its_approval_keeps_the_done_work_and_resumes() {
    let script = Script::new()
        .route(planner(), [plan("Old way", &["Patch A", "Patch B", "Patch C"])])
        .route(
            anyone(),
            [
                turn_plan(json!({"op": "done", "id": 1})),
                turn_plan(
                    json!({"op": "init", "tasks": ["Rewrite B and C together", "Run the suite"]}),
                ),
                Reply::text("A rewrite is better; it waits for you."),
                turn_plan(json!({"op": "done", "id": 4})),
                turn_plan(json!({"op": "done", "id": 5})),
                Reply::text("Rewritten and tested."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, mut events) = approved_chat(&serve, json!({})).await;

    assert_eq!(statuses(&serve, &id).await.len(), 3, "nothing replaced yet");
    let replace = changes(&serve, &id).await.remove(0);
    assert_eq!(
        (replace["kind"].clone(), replace["tasks"].as_array().unwrap().len()),
        (json!("replace"), 2)
    );
    let cid = replace["id"].as_str().unwrap().to_owned();
    let (status, view) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(status, 202, "{view}");
    let record = events.wait_for("the completion", |name, _| name == "completion").await;
    let tasks = record["completion"]["tasks"].as_array().unwrap();
    let shown: Vec<(u64, &str)> =
        tasks.iter().map(|t| (t["id"].as_u64().unwrap(), t["status"].as_str().unwrap())).collect();
    assert_eq!(shown, [(1, "done"), (2, "dropped"), (3, "dropped"), (4, "done"), (5, "done")]);
    assert_eq!(
        record["completion"]["adherence"],
        json!({"steps": 3, "done_as_planned": 1, "modified": 0, "dropped": 2, "added": 2, "in_order": true})
    );
}

/// The resumed executor asks again and keeps working: an answer must wait for its turn.
async fn answer_waits_for_the_running_turn(serve: &Serve, id: &str, events: &mut EventStream) {
    events
        .wait_for("its second request", |name, data| {
            name == "plan_change" && data["change"]["reason"] == "second try"
        })
        .await;
    let second = changes(serve, id).await.pop().unwrap();
    let cid = second["id"].as_str().unwrap().to_owned();
    let (status, error) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (409, json!("ERR_TURN_ACTIVE")),
        "{error}"
    );
    assert_eq!(changes(serve, id).await.last().unwrap()["status"], "pending", "unchanged");
    serve.post(&format!("/v1/chats/{id}/stop"), json!(null)).await;
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(status, 202);
}

/// Unknown changes and chats are 404s.
async fn no_such_change(serve: &Serve, id: &str) {
    let (status, error) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/nope/approve"), json!(null)).await;
    assert_eq!((status, error["error"]["code"].clone()), (404, json!("ERR_NOT_FOUND")), "{error}");
    let (status, error) = serve.post("/v1/chats/nope/plan/changes/x/reject", json!(null)).await;
    assert_eq!(status, 404, "{error}");
}

#[tokio::test]
async fn bad_answers_change_nothing_and_a_waiting_change_survives_a_restart() {
    let script = Script::new().route(planner(), [plan("Two steps", &["One", "Two"])]).route(
        anyone(),
        [
            turn_plan(json!({"op": "drop", "id": 9})),
            turn_plan(json!({"op": "drop", "id": 1, "outcome": "first try"})),
            turn_plan(json!({"op": "drop", "id": 1, "outcome": "asking twice"})),
            Reply::text("Waiting for you."),
            turn_plan(json!({"op": "drop", "id": 1, "outcome": "second try"})),
            Answer::new().text("Still thinking…").stall().into(),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (id, _) = approved_chat(&serve, json!({})).await;
    let requests = provider.requests();
    assert!(tool_results(&requests[2]).contains("no task 9"), "a missing task is refused");
    assert!(tool_results(&requests[4]).contains("already waits"), "asked once");
    let waiting = changes(&serve, &id).await;
    assert_eq!(waiting.len(), 1, "{waiting:?}");
    let cid = waiting[0]["id"].as_str().unwrap().to_owned();

    no_such_change(&serve, &id).await;

    let serve = Serve::start_in(serve.stop());
    let after = changes(&serve, &id).await;
    assert_eq!(after, waiting, "the waiting change survived the restart");
    let mut events = serve.events(&id).await;
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/reject"), json!(null)).await;
    assert_eq!(status, 202);
    for verb in ["reject", "approve"] {
        let (status, error) =
            serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/{verb}"), json!(null)).await;
        assert_eq!(
            (status, error["error"]["code"].clone()),
            (409, json!("ERR_CHANGE_ANSWERED")),
            "{error}"
        );
    }

    answer_waits_for_the_running_turn(&serve, &id, &mut events).await;
}
