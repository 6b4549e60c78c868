//! Plan mode end to end through the headless API (DESIGN §2), against a scripted provider
//! on loopback and the real npm filesystem server: questions, answers, plan, edit, approve,
//! revise, cancel.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner, questions};
use support::{openai_config, Serve};

struct World {
    provider: ScriptedServer,
    serve: Serve,
    workspace: tempfile::TempDir,
}

async fn world(script: Script, config_extra: &str) -> World {
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&format!("{}{config_extra}", openai_config(&provider.openai_url())));
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("README.md"), "# Shop\nOrders live in orders.csv\n")
        .unwrap();
    World { provider, serve, workspace }
}

impl World {
    async fn chat(&self, extra: Value) -> String {
        let mut body = json!({"workspace": self.workspace.path()});
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        self.serve.create_chat(body).await
    }

    fn planner_requests(&self) -> Vec<preflight_testkit::RecordedRequest> {
        self.provider
            .requests()
            .into_iter()
            .filter(|r| r.system().contains("plan-questions"))
            .collect()
    }

    fn executor_requests(&self) -> Vec<preflight_testkit::RecordedRequest> {
        self.provider
            .requests()
            .into_iter()
            .filter(|r| !r.system().contains("plan-questions"))
            .collect()
    }
}

fn roles(chat: &Value) -> Vec<String> {
    chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let kind = if !m["questions"].is_null() {
                "questions"
            } else if !m["plan"].is_null() {
                "plan"
            } else if m["plan_answer"] == true {
                "answer"
            } else {
                m["role"].as_str().unwrap()
            };
            kind.to_owned()
        })
        .collect()
}

fn two_questions() -> Reply {
    questions(&[
        ("q1", "Which format?", ["CSV", "JSON", "Excel"]),
        ("q2", "Which rows?", ["All", "Last month", "Archived too"]),
    ])
}

#[tokio::test]
async fn questions_then_a_custom_answer_then_a_plan_edited_approved_and_ticked_off() {
    let executor = Answer::new()
        .tool_call("turn_plan", json!({"op": "done", "id": 1, "outcome": "route added"}))
        .into();
    let finish = Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 2})).into();
    let script = Script::new()
        .route(
            planner(),
            [two_questions(), plan("CSV export", &["Add the route", "Write the test"])],
        )
        .route(anyone(), [executor, finish, Reply::text("Done: the export works.")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;

    let (status, sent) = world
        .serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Add a CSV export"}))
        .await;
    assert_eq!(status, 202, "{sent}");
    assert_eq!(sent["state"]["phase"], "planning", "planning before send returns");
    events.wait_for_phase("questions").await;
    assert!(
        events.seen.iter().all(|(name, _)| name != "delta"),
        "a planner turn streams no tokens"
    );

    let chat = world.serve.chat(&id).await;
    assert_eq!(roles(&chat), ["user", "questions"]);
    let card = &chat["messages"][1];
    assert!(!card["content"].as_str().unwrap().contains("```"), "no raw fence in a card");
    assert_eq!(
        card["questions"][0],
        json!({"id": "q1", "question": "Which format?", "options": ["CSV", "JSON", "Excel"], "answer": null})
    );
    assert_eq!(chat["state"]["plan_pending"]["questions"].as_array().unwrap().len(), 2);

    let (status, refused) =
        world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "hello?"})).await;
    assert_eq!((status, refused["error"]["code"].as_str()), (409, Some("ERR_PLAN_PENDING")));
    let answers = format!("/v1/chats/{id}/answers");
    let (status, empty) =
        world.serve.post(&answers, json!({"question_id": "q1", "answer": "  "})).await;
    assert_eq!((status, empty["error"]["code"].as_str()), (400, Some("ERR_EMPTY_ANSWER")));
    let (status, unknown) =
        world.serve.post(&answers, json!({"question_id": "q9", "answer": "x"})).await;
    assert_eq!((status, unknown["error"]["code"].as_str()), (400, Some("ERR_UNKNOWN_QUESTION")));
    assert_eq!(
        roles(&world.serve.chat(&id).await),
        ["user", "questions"],
        "refusals changed nothing"
    );

    let (status, half) =
        world.serve.post(&answers, json!({"question_id": "q1", "answer": "CSV"})).await;
    assert_eq!((status, &half["state"]["phase"]), (202, &json!("questions")));
    let custom = "Only rows from 2024 — and skip refunds";
    world.serve.post(&answers, json!({"question_id": "q2", "answer": custom})).await;
    events.wait_for_phase("awaiting_approval").await;

    let second_planner = &world.planner_requests()[1];
    assert!(
        second_planner.body.to_string().contains(custom),
        "the custom answer reaches the planner verbatim"
    );
    let chat = world.serve.chat(&id).await;
    assert_eq!(roles(&chat), ["user", "questions", "answer", "answer", "plan"]);
    assert_eq!(chat["messages"][3]["content"], format!("Which rows?\nUser's answer: {custom}"));
    let plan_doc = &chat["state"]["plan"];
    assert_eq!(
        (plan_doc["approval"].as_str(), plan_doc["revision"].as_u64()),
        (Some("pending"), Some(1))
    );
    assert_eq!(
        plan_doc["sandbox"]["dir"],
        format!("{}/.sandbox", world.workspace.path().display())
    );
    assert_eq!(chat["state"]["plan_pending"], Value::Null);

    let (status, edited) = world
        .serve
        .request(
            "PATCH",
            &format!("/v1/chats/{id}/plan/doc"),
            Some(json!({"title": "CSV export (edited)"})),
        )
        .await;
    assert_eq!((status, edited["revision"].as_u64()), (200, Some(2)), "{edited}");
    let (_, revisions) = world.serve.get(&format!("/v1/chats/{id}/plan/revisions")).await;
    let titles: Vec<&str> = revisions["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["CSV export", "CSV export (edited)"]);

    let (status, approved) =
        world.serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!((status, &approved["state"]["phase"]), (202, &json!("executing")));
    let first_list = events
        .wait_for("the initial task list", |name, data| {
            name == "plan" && !data["tasks"].as_array().unwrap().is_empty()
        })
        .await;
    let first = &first_list["tasks"][0];
    let seed_000 = ["id", "title", "status"].map(|key| (key, first[key].clone()));
    assert_eq!(
        seed_000,
        [("id", json!(1)), ("title", json!("Add the route")), ("status", json!("active"))]
    );
    assert_eq!(first["origin"], "plan", "{first}");
    assert!(first["created_at"].is_string() && first["created_at"] == first["updated_at"]);
    events
        .wait_for("a tick", |name, data| name == "plan" && data["tasks"][0]["status"] == "done")
        .await;
    events
        .wait_for("the closed list", |name, data| name == "plan" && data["tasks"] == json!([]))
        .await;
    events.wait_for_phase("idle").await;
    assert!(events.seen.iter().any(|(name, _)| name == "delta"), "the executor streams tokens");

    let executor = &world.executor_requests()[0];
    assert!(
        executor.system().contains("CSV export (edited)"),
        "the approved plan is the directive"
    );
    assert!(executor.tool_names().contains(&"turn_plan".to_owned()));
    assert!(
        executor.tool_names().contains(&"mcp_filesystem_write_file".to_owned()),
        "managed profile"
    );
    let chat = world.serve.chat(&id).await;
    assert_eq!(chat["state"]["plan"]["approval"], "approved");
    assert_eq!(
        chat["messages"].as_array().unwrap().last().unwrap()["content"],
        "Done: the export works."
    );
    assert_eq!(
        world.serve.get(&format!("/v1/chats/{id}/plan")).await.1,
        json!({"tasks": [], "files": null})
    );
    assert_eq!(world.planner_requests().len(), 2, "planning ran once, then never again");
}

#[tokio::test]
async fn cancel_returns_the_chat_to_right_after_its_first_message() {
    let script = Script::new()
        .route(planner(), [two_questions(), plan("P", &["one"])])
        .route(anyone(), [Reply::text("ok")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("questions").await;
    let (status, cancelled) =
        world.serve.post(&format!("/v1/chats/{id}/plan/cancel"), json!(null)).await;
    assert_eq!(status, 200);
    assert_eq!(
        cancelled["state"],
        json!({"phase": "idle", "plan_pending": null, "plan": null, "completion": null,
               "stopped": null, "changes": [], "executor_calls_tools": true})
    );
    assert_eq!(roles(&cancelled), ["user"]);
    let (_, profile) = world.serve.get(&format!("/v1/chats/{id}/profile")).await;
    // No turn holds a profile now; the next one plans again, since a cancelled chat is the
    // chat right after its first message (its next message gets a plan card).
    assert_eq!(profile["name"], "planning", "the next message plans again");
    assert!(world.executor_requests().is_empty(), "cancel executes nothing");
}

#[tokio::test]
async fn feedback_revises_the_plan_and_every_revision_is_kept() {
    let script = Script::new()
        .route(planner(), [plan("First", &["a"]), plan("Second", &["a", "b"])])
        .route(anyone(), [Reply::text("ok")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let (status, _) = world
        .serve
        .post(&format!("/v1/chats/{id}/plan/reject"), json!({"feedback": "Add a second step"}))
        .await;
    assert_eq!(status, 202);
    events
        .wait_for("the revised plan", |name, data| {
            name == "plan_status" && data["phase"] == "awaiting_approval"
        })
        .await;
    assert!(world.planner_requests()[1].body.to_string().contains("Add a second step"));
    let (_, revisions) = world.serve.get(&format!("/v1/chats/{id}/plan/revisions")).await;
    let kept: Vec<(String, String)> = revisions["revisions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (r["title"].as_str().unwrap().to_owned(), r["approval"].as_str().unwrap().to_owned())
        })
        .collect();
    assert_eq!(kept, [("First".into(), "rejected".into()), ("Second".into(), "pending".into())]);

    let (status, rejected) =
        world.serve.post(&format!("/v1/chats/{id}/plan/reject"), json!({})).await;
    assert_eq!(status, 202);
    assert_eq!(rejected["state"]["phase"], "idle", "reject without feedback is a cancel");
    assert_eq!(roles(&rejected), ["user"]);
    assert_eq!(
        world.serve.get(&format!("/v1/chats/{id}/plan/revisions")).await.1,
        json!({"revisions": []})
    );
}

#[tokio::test]
async fn a_message_while_a_plan_waits_is_revision_feedback() {
    let script = Script::new()
        .route(planner(), [plan("First", &["a"]), plan("Second", &["b"])])
        .route(anyone(), [Reply::text("ok")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("awaiting_approval").await;
    world
        .serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Use step b instead"}))
        .await;
    events.wait_for_phase("awaiting_approval").await;
    let chat = world.serve.chat(&id).await;
    assert_eq!(chat["state"]["plan"]["title"], "Second");
    assert!(world.executor_requests().is_empty());
}

#[tokio::test]
async fn auto_approve_goes_straight_to_execution() {
    let script = Script::new()
        .route(planner(), [plan("Quick", &["only step"])])
        .route(anyone(), [Reply::text("All done.")]);
    let world = world(script, "").await;
    let id = world.chat(json!({"auto_approve": true})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("idle").await;
    assert!(!events
        .seen
        .iter()
        .any(|(name, data)| name == "plan_status" && data["phase"] == "awaiting_approval"));
    let chat = world.serve.chat(&id).await;
    assert_eq!(chat["state"]["plan"]["approval"], "pre_approved");
    assert_eq!(world.executor_requests().len(), 1);
}

#[tokio::test]
async fn a_chat_without_plan_mode_never_plans_and_later_turns_never_plan() {
    let script = Script::new()
        .route(planner(), [plan("Never", &["x"])])
        .route(anyone(), [Reply::text("one"), Reply::text("two")]);
    let world = world(script, "").await;
    let id = world.chat(json!({"plan_mode": false})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Hi"})).await;
    events.wait_for_phase("idle").await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Again"})).await;
    events
        .wait_for("the second answer", |name, data| {
            name == "message" && data["message"]["content"] == "two"
        })
        .await;
    assert!(world.planner_requests().is_empty());
    for request in world.provider.requests() {
        assert!(
            !request.body.to_string().contains("plan-questions"),
            "the executor's prompt never names the fence"
        );
    }
}

#[tokio::test]
async fn editing_the_first_message_runs_plan_mode_again() {
    let script = Script::new()
        .route(
            planner(),
            [Reply::text("Simple enough, no plan needed."), plan("Second try", &["x"])],
        )
        .route(anyone(), [Reply::text("did it")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("idle").await;
    let chat = world.serve.chat(&id).await;
    let first = chat["messages"][0]["id"].as_str().unwrap().to_owned();
    let (status, _) = world
        .serve
        .request(
            "PUT",
            &format!("/v1/chats/{id}/messages/{first}"),
            Some(json!({"content": "Do it properly"})),
        )
        .await;
    assert_eq!(status, 202);
    events.wait_for_phase("awaiting_approval").await;
    let chat = world.serve.chat(&id).await;
    assert_eq!(roles(&chat), ["user", "plan"]);
    assert_eq!(chat["messages"][0]["content"], "Do it properly");
}

/// A plan of `count` steps, the second one's action `second` long.
fn big_plan(count: usize, second: usize) -> Reply {
    let steps: Vec<String> = (1..=count)
        .map(|n| if n == 2 { "s".repeat(second) } else { format!("step {n}") })
        .collect();
    let steps: Vec<&str> = steps.iter().map(String::as_str).collect();
    plan("Big job", &steps)
}

#[tokio::test]
async fn a_plan_over_the_task_limits_is_sent_back_to_the_planner_never_cut() {
    let script = Script::new().route(planner(), [big_plan(41, 8), big_plan(12, 8)]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it all"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let requests = world.provider.requests();
    let repair = requests[1].body["messages"].to_string();
    assert!(repair.contains("the plan has 41 steps, and a task list holds at most 40"), "{repair}");
    let view = world.serve.chat(&id).await;
    assert_eq!(view["state"]["plan"]["steps"].as_array().unwrap().len(), 12);
}

#[tokio::test]
async fn a_plan_that_still_does_not_fit_waits_and_cannot_be_approved_even_automatically() {
    let script = Script::new().route(planner(), [big_plan(3, 130), big_plan(3, 125)]);
    let world = world(script, "").await;
    let id = world.chat(json!({"auto_approve": true})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let before = world.serve.chat(&id).await;
    assert_eq!(before["state"]["plan"]["approval"], "pending", "not pre-approved");
    let action = before["state"]["plan"]["steps"][1]["action"].as_str().unwrap();
    assert_eq!(action.chars().count(), 125, "kept whole on the card");
    let (status, error) =
        world.serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(
        (status, error["error"]["code"].clone()),
        (400, json!("ERR_BAD_REQUEST")),
        "{error}"
    );
    let message = error["error"]["message"].as_str().unwrap();
    assert!(message.contains("step 2 has 125 characters"), "{message}");
    assert_eq!(world.serve.chat(&id).await, before, "nothing changed");
    let (_, panel) = world.serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(panel["tasks"], json!([]));
}

#[tokio::test]
async fn the_planners_draft_is_told_by_its_words_so_far_never_by_the_words_themselves() {
    let prose = "word ".repeat(45);
    let script = Script::new()
        .route(planner(), [Reply::text(&prose)])
        .route(anyone(), [Reply::text("Done.")]);
    let world = world(script, "").await;
    let id = world.chat(json!({})).await;
    let mut events = world.serve.events(&id).await;
    world.serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Do it"})).await;
    events.wait_for_phase("idle").await;
    let planning: Vec<&(String, Value)> = events
        .seen
        .iter()
        .take_while(|(name, data)| !(name == "plan_status" && data["phase"] == "executing"))
        .collect();
    let drafted: Vec<u64> = planning
        .iter()
        .filter(|(name, _)| name == "drafting")
        .map(|(_, data)| data["words"].as_u64().unwrap())
        .collect();
    assert_eq!(drafted, [20, 40], "every twentieth word: {planning:?}");
    assert!(!planning.iter().any(|(name, _)| name == "delta"), "no draft words: {planning:?}");
}
