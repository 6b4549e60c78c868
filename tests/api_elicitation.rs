//! A server's question during execution, answered through the headless API: the executor
//! calls the reference `everything` server's elicitation tool over Streamable HTTP, the
//! question arrives as an `elicitation` event and in `GET …/elicitations`, an answer the
//! form does not take is refused and leaves it open, and the accepted answer reaches the
//! server (the tool's result, which the model reads, holds it).

mod support;

use preflight_testkit::{HttpEverything, Reply, Script, ScriptedServer};
use serde_json::json;
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

#[tokio::test]
async fn an_executor_tools_question_waits_for_the_users_answer_through_the_api() {
    let everything = HttpEverything::start("streamableHttp").await;
    let ask = Reply::tool_call("mcp_everything_trigger-elicitation-request", json!({}));
    let script = Script::new()
        .route(planner(), [plan("Profile", &["Ask for the user's details"])])
        .route(anyone(), [ask, Reply::text("Thanks, noted.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config(&provider.openai_url())).unwrap();
    let servers = json!({"mcpServers": {"everything": {"type": "http", "url": everything.url}}});
    std::fs::write(home.path().join("mcp.json"), servers.to_string()).unwrap();
    let serve = Serve::start_in(home);
    let id = serve.create_chat(json!({})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Collect my details"})).await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!({})).await;

    let shown = events.wait_for("elicitation", |name, _| name == "elicitation").await;
    let question = &shown["elicitation"]["question"];
    assert_eq!(
        (question["mode"].as_str(), question["server"].as_str()),
        (Some("form"), Some("everything"))
    );
    assert_eq!(question["schema"]["properties"]["integer"]["default"], 42);
    let eid = shown["elicitation"]["id"].as_str().unwrap().to_owned();
    let (status, open) = serve.get(&format!("/v1/chats/{id}/elicitations")).await;
    assert_eq!((status, open["elicitations"][0]["id"].as_str()), (200, Some(eid.as_str())));

    let path = format!("/v1/chats/{id}/elicitations/{eid}");
    let wrong = json!({"action": "accept", "content": {"integer": "forty-two"}});
    let (status, refused) = serve.post(&path, wrong).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (400, Some("ERR_BAD_REQUEST")),
        "{refused}"
    );
    let (_, still) = serve.get(&format!("/v1/chats/{id}/elicitations")).await;
    assert_eq!(still["elicitations"].as_array().map(Vec::len), Some(1), "still open");

    let content = json!({"name": "Ada Lovelace", "check": true, "integer": 7});
    let (status, _) = serve.post(&path, json!({"action": "accept", "content": content})).await;
    assert_eq!(status, 204);
    let closed =
        events.wait_for("elicitation_closed", |name, _| name == "elicitation_closed").await;
    assert_eq!(
        (closed["id"].as_str(), closed["action"].as_str()),
        (Some(eid.as_str()), Some("accept"))
    );
    events.wait_for_phase("idle").await;
    let requests = provider.requests();
    let after = requests.last().unwrap().body.to_string();
    assert!(after.contains("Ada Lovelace"), "the server got the answer and the model read it");
    let (status, _) = serve.post(&path, json!({"action": "decline"})).await;
    assert_eq!(status, 404, "an answered question is gone");
}
