//! Attachments through the headless API: a file outside the workspace, attached to the
//! task, reaches the read-only planner (told of it, and read with `read_attachment`) and the
//! executor; a file that cannot be attached refuses the message and changes nothing.

mod support;

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

const ORDERS: &str = "id,total\n1,9.50\n2,12.00\n";

fn attached_names(chat: &Value) -> Vec<String> {
    let attachments = chat["messages"][0]["attachments"].as_array().cloned().unwrap_or_default();
    attachments.iter().map(|a| a["name"].as_str().unwrap().to_owned()).collect()
}

#[tokio::test]
async fn an_attached_file_outside_the_workspace_is_read_by_the_planner_and_the_executor() {
    let read = || Reply::tool_call("read_attachment", json!({"name": "orders.csv"}));
    let script = Script::new()
        .route(planner(), [read(), plan("Totals", &["Sum the totals"])])
        .route(anyone(), [read(), Reply::text("The total is 21.50.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let (workspace, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let file = outside.path().join("orders.csv");
    std::fs::write(&file, ORDERS).unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;

    let body = json!({"content": "Sum the order totals", "files": [file]});
    let (status, sent) = serve.post(&format!("/v1/chats/{id}/messages"), body).await;
    assert_eq!(status, 202, "{sent}");
    events.wait_for_phase("awaiting_approval").await;
    std::fs::write(&file, "changed after sending").unwrap();

    let chat = serve.chat(&id).await;
    let attachment = &chat["messages"][0]["attachments"][0];
    assert_eq!(
        (attachment["name"].as_str(), attachment["size"].as_u64()),
        (Some("orders.csv"), Some(24))
    );
    let copy = serve.home_path().join("attachments").join(&id).join("orders.csv");
    assert_eq!(std::fs::read_to_string(&copy).unwrap(), ORDERS, "the copy is what was sent");

    let requests = provider.requests();
    let first = &requests[0];
    assert!(
        first.messages().iter().any(|m| m["content"].as_str().is_some_and(|text| {
            text.contains("Sum the order totals") && text.contains("- orders.csv (24 B)")
        })),
        "the planner is told of the file: {:?}",
        first.messages()
    );
    let tools = first.tool_names();
    assert!(tools.contains(&"read_attachment".to_owned()), "{tools:?}");
    assert!(!tools.iter().any(|name| name.contains("write")), "still read-only: {tools:?}");
    assert!(requests[1].last_message_text().contains("id,total\n1,9.50"), "the planner read it");

    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!({})).await;
    events.wait_for_phase("idle").await;
    let executor = provider.requests();
    let last = executor.last().unwrap();
    assert!(last.tool_names().contains(&"read_attachment".to_owned()));
    assert!(
        last.body.to_string().contains("2,12.00"),
        "the executor read the copy, not the change"
    );

    let (status, _) = serve.request("DELETE", &format!("/v1/chats/{id}"), None).await;
    assert_eq!(status, 200);
    assert!(!copy.parent().unwrap().exists(), "deleting the chat removes its copies");
}

#[tokio::test]
async fn a_file_that_cannot_be_attached_refuses_the_message_and_changes_nothing() {
    let provider = ScriptedServer::start(Script::replies([])).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let outside = tempfile::tempdir().unwrap();
    let good = outside.path().join("good.txt");
    std::fs::write(&good, "fine").unwrap();
    let id = serve.create_chat(json!({})).await;
    let cases = [
        json!([good, outside.path().join("missing.txt")]),
        json!([outside.path()]),
        json!(["relative.txt"]),
    ];
    for files in cases {
        let body = json!({"content": "Look at these", "files": files});
        let (status, refused) = serve.post(&format!("/v1/chats/{id}/messages"), body).await;
        assert_eq!(
            (status, refused["error"]["code"].as_str()),
            (400, Some("ERR_BAD_REQUEST")),
            "{refused}"
        );
        let chat = serve.chat(&id).await;
        assert_eq!(chat["messages"], json!([]), "nothing stored for {files}");
        assert_eq!(attached_names(&chat), Vec::<String>::new());
        let copies = serve.home_path().join("attachments").join(&id);
        let left = std::fs::read_dir(&copies).map(|entries| entries.count()).unwrap_or(0);
        assert_eq!(left, 0, "no copy left for {files}");
    }
    assert!(provider.requests().is_empty(), "no model was asked");
}
