//! MCP prompts and resources through the headless API (DESIGN §17), with the reference
//! `everything` server over stdio: its prompts are listed with their arguments; `/NAME args`
//! is expanded through `prompts/get` into what the model reads while the message keeps what
//! was typed; `@server:uri` attaches a resource; an unknown prompt, a missing argument and
//! a resource the server fails to read are refused and store nothing; a planning chat lists
//! no resources of a server that is not read-only.

mod support;

use std::path::PathBuf;

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::anyone;
use support::{openai_config, Serve};

const STATIC_DOC: &str = "demo://resource/static/document/architecture.md";

fn everything_js() -> PathBuf {
    let relative =
        "../../tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js";
    std::fs::canonicalize(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(relative))
        .expect("tests/peers is installed (npm ci in tests/peers)")
}

async fn start() -> (Serve, ScriptedServer) {
    let script = Script::new().forever(anyone(), Reply::text("Noted."));
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config(&provider.openai_url())).unwrap();
    let everything = json!({"command": "node", "args": [everything_js(), "stdio"]});
    // A server that cannot start is named where it would have answered.
    let broken = json!({"command": "/nonexistent/mcp-server"});
    let servers = json!({"mcpServers": {"everything": everything, "broken": broken}});
    std::fs::write(home.path().join("mcp.json"), servers.to_string()).unwrap();
    (Serve::start_in(home), provider)
}

async fn send(serve: &Serve, id: &str, content: &str) -> (u16, Value) {
    serve.post(&format!("/v1/chats/{id}/messages"), json!({ "content": content })).await
}

/// Sends `content` and waits for the turn to end; the chat's last stored message.
async fn send_and_settle(serve: &Serve, id: &str, content: &str) -> Value {
    let mut events = serve.events(id).await;
    let (status, view) = send(serve, id, content).await;
    assert_eq!(status, 202, "{view}");
    events.wait_for_phase("idle").await;
    let chat = serve.chat(id).await;
    let users: Vec<Value> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "user")
        .cloned()
        .collect();
    users.last().cloned().unwrap()
}

fn last_request_text(provider: &ScriptedServer) -> String {
    provider.requests().last().unwrap().body.to_string()
}

#[tokio::test]
async fn prompts_expand_resources_attach_and_failures_store_nothing() {
    let (serve, provider) = start().await;
    let id = serve.create_chat(json!({"plan_mode": false})).await;
    let (status, list) = serve.get(&format!("/v1/chats/{id}/prompts")).await;
    assert_eq!(status, 200, "{list}");
    let prompts = list["prompts"].as_array().unwrap();
    let args = prompts.iter().find(|p| p["name"] == "args-prompt").expect("args-prompt listed");
    assert_eq!(args["server"], "everything");
    assert_eq!(args["command"], "args-prompt");
    let declared: Vec<(&str, bool)> = args["arguments"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| (a["name"].as_str().unwrap(), a["required"].as_bool().unwrap()))
        .collect();
    assert_eq!(declared, [("city", true), ("state", false)]);
    assert_eq!(list["failed"][0]["server"], "broken", "{list}");
    assert_eq!(list["failed"].as_array().map(Vec::len), Some(1));

    refusals_store_nothing(&serve, &id).await;
    expands_a_prompt(&serve, &provider, &id).await;
    attaches_a_resource(&serve, &provider, &id).await;
    plain_text_stays_plain(&serve, &provider, &id).await;
    planning_lists_no_writing_servers_resources(&serve).await;
}

async fn refusals_store_nothing(serve: &Serve, id: &str) {
    let cases = [
        ("/everything:no-such-prompt", 400, "ERR_PROMPT_UNKNOWN"),
        ("/args-prompt", 400, "ERR_PROMPT_ARGUMENTS"),
        ("/args-prompt Paris CA extra", 400, "ERR_PROMPT_ARGUMENTS"),
        ("/broken:review this", 502, "ERR_PROMPT_FAILED"),
        ("Look at @everything:demo://resource/dynamic/text/0", 502, "ERR_RESOURCE_FAILED"),
    ];
    for (content, want_status, want_code) in cases {
        let (status, body) = send(serve, id, content).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (want_status, Some(want_code)),
            "{content}: {body}"
        );
    }
    let missing = send(serve, id, "/args-prompt").await.1;
    assert!(missing["error"]["message"].as_str().unwrap().contains("city"), "{missing}");
    assert_eq!(serve.chat(id).await["messages"], json!([]), "nothing was stored");
    let folder = serve.home_path().join("attachments").join(id);
    assert!(!folder.exists() || std::fs::read_dir(&folder).unwrap().next().is_none());
}

async fn expands_a_prompt(serve: &Serve, provider: &ScriptedServer, id: &str) {
    let typed = "/args-prompt \"San Francisco\" state=CA\nAnswer in one line.";
    let stored = send_and_settle(serve, id, typed).await;
    let seen = last_request_text(provider);
    assert!(seen.contains("What's weather in San Francisco, CA?"), "{seen}");
    assert!(seen.contains("Answer in one line."), "{seen}");
    assert!(!seen.contains("/args-prompt"), "the model reads the expansion: {seen}");
    assert_eq!(stored["typed"]["text"], typed);
    assert_eq!(
        (stored["typed"]["server"].as_str(), stored["typed"]["prompt"].as_str()),
        (Some("everything"), Some("args-prompt"))
    );
    assert!(stored["content"]
        .as_str()
        .unwrap()
        .starts_with("What's weather in San Francisco, CA?"));
}

async fn attaches_a_resource(serve: &Serve, provider: &ScriptedServer, id: &str) {
    let (status, list) = serve.get(&format!("/v1/chats/{id}/resources")).await;
    assert_eq!(status, 200, "{list}");
    let listed = list["resources"].as_array().unwrap();
    let doc =
        listed.iter().find(|r| r["uri"] == STATIC_DOC).expect("the static document is listed");
    assert_eq!(
        (doc["server"].as_str(), doc["mime_type"].as_str()),
        (Some("everything"), Some("text/markdown"))
    );
    let reference = format!("@everything:{STATIC_DOC}");
    assert_eq!(doc["reference"], reference.as_str());

    let stored = send_and_settle(serve, id, &format!("Summarise {reference}, please.")).await;
    let attachment = &stored["attachments"][0];
    assert_eq!(
        (attachment["name"].as_str(), attachment["source"].as_str()),
        (Some("architecture.md"), Some(reference.as_str()))
    );
    let copy = serve.home_path().join("attachments").join(id).join("architecture.md");
    let text = std::fs::read_to_string(copy).unwrap();
    assert!(text.contains("Architecture"), "the resource's own text: {text:.200}");
    assert_eq!(attachment["size"].as_u64(), Some(text.len() as u64));
    assert!(last_request_text(provider).contains("architecture.md"), "the model is told of it");

    // A blob is attached as its bytes.
    let stored = send_and_settle(serve, id, "And @everything:demo://resource/dynamic/blob/2").await;
    let name = stored["attachments"][0]["name"].as_str().unwrap();
    let copy = serve.home_path().join("attachments").join(id).join(name);
    let text = std::fs::read_to_string(copy).unwrap();
    assert!(text.starts_with("Resource 2: This is a base64 blob"), "{name}: {text}");
}

async fn plain_text_stays_plain(serve: &Serve, provider: &ScriptedServer, id: &str) {
    let text = "/nothing-by-this-name and mail me@everything:x or @nobody:demo://x";
    let stored = send_and_settle(serve, id, text).await;
    assert_eq!(stored["content"], text);
    assert!(stored.get("typed").is_none() && stored.get("attachments").is_none(), "{stored}");
    assert!(last_request_text(provider).contains("/nothing-by-this-name"));
}

async fn planning_lists_no_writing_servers_resources(serve: &Serve) {
    let planning = serve.create_chat(json!({"plan_mode": true})).await;
    let (status, list) = serve.get(&format!("/v1/chats/{planning}/resources")).await;
    assert_eq!(status, 200, "{list}");
    assert_eq!(list["resources"], json!([]), "the everything server is not read-only: {list}");
    let (status, refused) =
        send(serve, &planning, &format!("Plan with @everything:{STATIC_DOC}")).await;
    assert_eq!(
        (status, refused["error"]["code"].as_str()),
        (400, Some("ERR_RESOURCE_UNAVAILABLE")),
        "{refused}"
    );
    assert_eq!(serve.chat(&planning).await["messages"], json!([]));
}
