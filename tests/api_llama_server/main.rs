//! Preflight against a real OpenAI-compatible server (issue 53): llama-cpp-python's server
//! on loopback, serving the embedded model's GGUF. A chat gets the server's reply and keeps
//! the usage the server reported; a tool call in the server's own format is parsed and run;
//! the server's own errors (a context overflow, a request it refuses, its death mid-answer)
//! become Preflight's errors with nothing half-stored. The quirks found are written down at
//! the provider (`crates/llm/src/openai/compat.rs`).

#[path = "../support/mod.rs"]
mod support;

mod errors;
mod server;

use std::time::Duration;

use serde_json::{json, Value};
use tempfile::TempDir;

use server::{LlamaServer, Proxy};
use support::events::EventStream;
use support::Serve;

/// How long one turn of a real model may take on a busy two-core machine.
const TURN: Duration = Duration::from_secs(180);

/// `preflight serve` configured for `base_url`, with a chat on a workspace holding
/// `notes.txt`; the chat's id and its event stream (subscribed before anything is sent).
async fn chat_against(base_url: &str, window: u32) -> (Serve, TempDir, String, EventStream) {
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{base_url}\"\nmodel = \"smollm2\"\n\
         context_window = {window}\nmax_tokens = 64\n\n[executor]\nmax_rounds = 2\n\n\
         [sandbox]\nenabled = false\n"
    );
    let serve = Serve::start(&config);
    let workspace = TempDir::new().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "The answer is 42.\n").unwrap();
    let body = json!({"workspace": workspace.path(), "plan_mode": false});
    let id = serve.create_chat(body).await;
    let events = serve.events(&id).await;
    (serve, workspace, id, events)
}

async fn send(serve: &Serve, id: &str, content: &str) {
    let (status, answer) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": content})).await;
    assert_eq!(status, 202, "{answer}");
}

/// The `(prompt, completion)` tokens of every answer the server gave, summed.
fn reported(answers: &[Value]) -> (u64, u64, usize) {
    let with_usage: Vec<&Value> = answers.iter().filter(|a| a["usage"].is_object()).collect();
    let sum = |field: &str| with_usage.iter().map(|a| a["usage"][field].as_u64().unwrap()).sum();
    (sum("prompt_tokens"), sum("completion_tokens"), with_usage.len())
}

#[tokio::test]
async fn a_chat_gets_the_servers_reply_and_keeps_the_usage_it_reported() {
    let llama = LlamaServer::start(8192).await;
    let proxy = Proxy::start(llama.port).await;
    let (serve, _workspace, id, mut events) = chat_against(&proxy.base_url, 8192).await;
    send(&serve, &id, "Say hello in one short sentence.").await;
    events
        .wait_for_within(TURN, "the turn's end", |name, data| {
            name == "plan_status" && data["phase"] == "idle"
        })
        .await;

    let requests = proxy.requests();
    let chat_requests: Vec<&Value> = requests.iter().filter(|r| r["messages"].is_array()).collect();
    assert!(!chat_requests.is_empty());
    for request in &chat_requests {
        // The quirks `auto` detected from the server's model list (`owned_by: "me"`).
        assert_eq!(request["stream"], false, "whole answers from this server");
        assert!(request.get("stream_options").is_none());
        let offers_tools = request["tools"].as_array().is_some_and(|tools| !tools.is_empty());
        assert_eq!(request["tool_choice"] == "auto", offers_tools, "tools said aloud");
    }
    let (input, output, calls) = reported(&proxy.answers());
    assert!(calls >= 1 && input > 0 && output > 0, "{:#?}", proxy.answers());
    let chat = serve.chat(&id).await;
    let execution = &chat["usage"]["execution"];
    assert_eq!(
        (&execution["calls"], &execution["input_tokens"], &execution["output_tokens"]),
        (&json!(calls), &json!(input), &json!(output)),
        "the usage stored is what the server reported; {chat}"
    );
    let replies: Vec<&Value> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "assistant" && m["notice"].is_null())
        .filter(|m| !m["content"].as_str().unwrap_or_default().starts_with("The model could not"))
        .collect();
    assert!(!replies.is_empty(), "the server's reply is stored: {chat}");
}

#[tokio::test]
async fn a_tool_call_in_the_servers_own_format_is_parsed_and_run() {
    let llama = LlamaServer::start(8192).await;
    let proxy = Proxy::start(llama.port).await;
    let (serve, _workspace, id, mut events) = chat_against(&proxy.base_url, 8192).await;
    // The workspace's tools wait behind `tool_search` in a window this small (DESIGN §17):
    // Preflight's own tool is the one every request offers.
    proxy.force_tool("tool_search");
    send(&serve, &id, "Find a tool that lists the files of the workspace.").await;
    events
        .wait_for_within(TURN, "the turn's end", |name, data| {
            name == "plan_status" && data["phase"] == "idle"
        })
        .await;

    let answers = proxy.answers();
    let calls = answers.iter().filter_map(|a| a["choices"][0]["message"]["tool_calls"].as_array());
    let call = calls
        .flatten()
        .find(|call| call["function"]["name"] == "tool_search")
        .unwrap_or_else(|| panic!("the server did not call the tool: {answers:#?}"));
    let call_id = call["id"].as_str().unwrap();
    assert!(call_id.starts_with("call__0_tool_search_"), "the server's own ids: {call_id}");
    let chat = serve.chat(&id).await;
    let messages = chat["messages"].as_array().unwrap();
    let stored = messages
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().into_iter().flatten())
        .find(|stored| stored["id"] == call_id)
        .unwrap_or_else(|| panic!("the call is stored: {chat}"));
    assert_eq!(stored["name"], "tool_search");
    let arguments: Value = serde_json::from_str(stored["arguments"].as_str().unwrap()).unwrap();
    assert!(arguments["query"].is_string(), "{arguments}");
    assert!(
        messages.iter().any(|m| m["role"] == "tool" && m["tool_call_id"] == call_id),
        "the call was run and its result stored: {chat}"
    );
    // The next round, with the call and its result, is one the server takes (its schema wants
    // a string where OpenAI documents `null`).
    let failed = messages.iter().filter_map(|m| m["content"].as_str());
    let failed: Vec<&str> = failed.filter(|text| text.starts_with("The model could not")).collect();
    assert_eq!(failed, Vec::<&str>::new());
    let carried_result = proxy.requests().iter().any(|request| {
        let sent = request["messages"].as_array().into_iter().flatten();
        sent.clone().any(|m| m["role"] == "tool" && m["tool_call_id"] == call_id)
    });
    assert!(carried_result, "the result went back to the server");
}
