//! Plan review like code review (DESIGN §16) through the headless API, against a scripted
//! provider on loopback: comments anchored to steps and fields go to the planner quoted with
//! what they point at, in one revision request, and stay with the revision they were made
//! on; a comment the plan cannot hold is refused and changes nothing.

mod support;

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

struct World {
    provider: ScriptedServer,
    serve: Serve,
    _workspace: tempfile::TempDir,
    id: String,
}

/// A chat whose four-step plan waits for approval; the planner's next plan is `next`.
async fn waiting_plan(next: Reply) -> World {
    let script = Script::new()
        .route(planner(), [plan("Export", &["Read", "Write rows", "Zip", "Test it"]), next])
        .route(anyone(), [Reply::text("ok")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let workspace = tempfile::tempdir().unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Export orders"})).await;
    events.wait_for_phase("awaiting_approval").await;
    World { provider, serve, _workspace: workspace, id }
}

impl World {
    fn planner_requests(&self) -> Vec<preflight_testkit::RecordedRequest> {
        let requests = self.provider.requests().into_iter();
        requests.filter(|r| r.system().contains("plan-questions")).collect()
    }

    async fn reject(&self, body: Value) -> (u16, Value) {
        self.serve.post(&format!("/v1/chats/{}/plan/reject", self.id), body).await
    }

    async fn revisions(&self) -> Vec<Value> {
        let (_, revisions) = self.serve.get(&format!("/v1/chats/{}/plan/revisions", self.id)).await;
        revisions["revisions"].as_array().unwrap().clone()
    }
}

fn comment(anchor: Value, text: &str) -> Value {
    json!({"anchor": anchor, "text": text})
}

#[tokio::test]
async fn comments_on_two_steps_reach_the_planner_quoted_in_one_request_and_stay_on_revision_1() {
    let world = waiting_plan(plan("Export, streamed", &["Read", "Stream rows", "Test it"])).await;
    let mut events = world.serve.events(&world.id).await;
    let comments = [
        comment(json!({"step": 4}), "Test with a 1 GB file."),
        comment(json!({"step": 2}), "Stream them, do not buffer."),
    ];
    let (status, _) = world.reject(json!({"comments": comments})).await;
    assert_eq!(status, 202);
    events
        .wait_for("the revised plan", |name, data| {
            name == "plan_status" && data["phase"] == "awaiting_approval"
        })
        .await;
    let requests = world.planner_requests();
    assert_eq!(requests.len(), 2, "one revision request for both comments");
    let asked = requests[1].last_message_text();
    let step_2 = "On step 2, which says \"Write rows (expected: Write rows is done)\":\n   \
                  Stream them, do not buffer.";
    let step_4 = "On step 4, which says \"Test it (expected: Test it is done)\":\n   \
                  Test with a 1 GB file.";
    assert!(asked.contains(step_2) && asked.contains(step_4), "{asked}");
    assert!(asked.find(step_2) < asked.find(step_4), "in the plan's order: {asked}");
    let (_, chat) = world.serve.get(&format!("/v1/chats/{}", world.id)).await;
    let sent = chat["messages"].as_array().unwrap().iter().find(|m| m["plan_answer"] == true);
    assert_eq!(sent.unwrap()["review"], json!({"revision": 1, "comments": 2}), "{chat:#}");

    let revisions = world.revisions().await;
    assert_eq!(revisions.len(), 2);
    let kept = &revisions[0]["comments"];
    assert_eq!(kept[0]["anchor"], json!({"step": 4}));
    assert_eq!(kept[0]["quote"], "Test it (expected: Test it is done)");
    assert_eq!(kept[1]["text"], "Stream them, do not buffer.");
    assert_eq!(revisions[0]["approval"], "rejected");
    assert_eq!(revisions[1]["comments"], Value::Null, "the new revision has none yet");

    // A fork at the first plan card holds it waiting, as it stood: no comments yet.
    let (_, chat) = world.serve.get(&format!("/v1/chats/{}", world.id)).await;
    let messages = chat["messages"].as_array().unwrap();
    let card = messages.iter().find(|m| m["plan"]["revision"] == 1).unwrap();
    let (status, fork) = world
        .serve
        .post(&format!("/v1/chats/{}/fork", world.id), json!({"message_id": card["id"]}))
        .await;
    assert_eq!(status, 201, "{fork}");
    let plan = &fork["state"]["plan"];
    assert_eq!((&plan["revision"], &plan["approval"]), (&json!(1), &json!("pending")), "{fork}");
    assert_eq!(plan["comments"], Value::Null, "{fork}");
}

#[tokio::test]
async fn a_comment_the_plan_cannot_hold_is_400_and_changes_nothing() {
    let world = waiting_plan(plan("Never asked", &["a"])).await;
    let (_, before) = world.serve.get(&format!("/v1/chats/{}", world.id)).await;
    let fine = comment(json!({"step": 1}), "fine");
    let cases = [
        (comment(json!({"step": 5}), "x"), "no step 5"),
        (comment(json!({"field": "tests"}), "x"), "nothing in the tests"),
        (comment(json!({"step": 2}), "   "), "comment 2 is empty"),
        (comment(json!({"field": "title"}), "x"), "unknown variant"),
        (json!({"anchor": {"step": 1, "field": "aim"}, "text": "x"}), "bad JSON body"),
    ];
    for (bad, said) in cases {
        let (status, error) =
            world.reject(json!({"feedback": "also this", "comments": [fine, bad]})).await;
        assert_eq!((status, &error["error"]["code"]), (400, &json!("ERR_BAD_REQUEST")), "{bad}");
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{said}: {message}");
    }
    let (_, after) = world.serve.get(&format!("/v1/chats/{}", world.id)).await;
    assert_eq!(after, before, "nothing changed");
    assert_eq!(world.planner_requests().len(), 1, "the planner was not asked again");
    assert_eq!(world.revisions().await[0]["comments"], Value::Null);
}
