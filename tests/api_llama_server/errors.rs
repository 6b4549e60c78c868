//! The server's own errors, as Preflight says them: a prompt over the server's context, a
//! request the server refuses, the server killed while it answers. Each ends the turn with
//! the error said and nothing half-stored; the chat goes on once the server is back.

use serde_json::{json, Value};

use crate::server::{LlamaServer, Proxy};
use crate::{chat_against, send, TURN};

/// The chat's messages but the user's and what Preflight said itself (a notice, or the
/// turn's failure in words): what the model added.
fn model_messages(chat: &Value) -> Vec<Value> {
    let messages = chat["messages"].as_array().unwrap();
    let said_by_preflight = |m: &Value| {
        !m["notice"].is_null()
            || m["content"].as_str().is_some_and(|text| text.starts_with(FAILED_TURN))
    };
    let from_model = |m: &&Value| m["role"] != "user" && !said_by_preflight(m);
    messages.iter().filter(from_model).cloned().collect()
}

/// How the chat says that a turn failed (the reason follows).
const FAILED_TURN: &str = "The model could not finish this turn: ";

/// The failure the chat said last.
fn said_failure(chat: &Value) -> String {
    let messages = chat["messages"].as_array().unwrap();
    let mut failures =
        messages.iter().rev().filter_map(|m| m["content"].as_str()?.strip_prefix(FAILED_TURN));
    failures.next().unwrap_or_else(|| panic!("no failure said: {chat}")).to_owned()
}

/// Waits for the turn's `error` event and its end; the error's code.
async fn error_of_turn(events: &mut crate::EventStream) -> String {
    let error = events.wait_for_within(TURN, "the error", |name, _| name == "error").await;
    events.wait_for_phase("idle").await;
    error["code"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn a_prompt_over_the_servers_context_is_said_as_too_long_and_stores_nothing() {
    // The server holds 512 tokens; Preflight is told the model holds many more, so the
    // request is sent whole and the server's own refusal is what comes back.
    let llama = LlamaServer::start(512).await;
    let (serve, _workspace, id, mut events) =
        chat_against(&format!("http://127.0.0.1:{}/v1", llama.port), 100_000).await;
    send(&serve, &id, "Say hello.").await;

    assert_eq!(error_of_turn(&mut events).await, "ERR_CONTEXT_TOO_LONG");
    let chat = serve.chat(&id).await;
    assert_eq!(model_messages(&chat), Vec::<Value>::new(), "{chat}");
    assert!(said_failure(&chat).contains("maximum context length is 512 tokens"), "{chat}");
    assert_eq!(chat["usage"]["execution"]["calls"], 0, "no answer, no usage");
}

#[tokio::test]
async fn a_request_the_server_refuses_is_rejected_once_not_retried() {
    let llama = LlamaServer::start(8192).await;
    let proxy = Proxy::start(llama.port).await;
    let (serve, _workspace, id, mut events) = chat_against(&proxy.base_url, 8192).await;
    // The next request reaches the server with a role its schema does not have: its answer
    // is a 500 saying "N validation errors", which is the request's fault, not the server's.
    proxy.break_next_request();
    send(&serve, &id, "Say hello.").await;

    assert_eq!(error_of_turn(&mut events).await, "ERR_PROVIDER_REJECTED");
    let chat_requests = proxy.requests().iter().filter(|r| r["messages"].is_array()).count();
    assert_eq!(chat_requests, 1, "a refusal is not sent again");
    let chat = serve.chat(&id).await;
    assert_eq!(model_messages(&chat), Vec::<Value>::new(), "{chat}");
    assert!(said_failure(&chat).contains("validation error"), "the server's words: {chat}");
}

#[tokio::test]
async fn the_server_killed_mid_answer_fails_the_turn_cleanly_and_the_chat_goes_on() {
    let mut llama = LlamaServer::start(8192).await;
    let port = llama.port;
    let (serve, _workspace, id, mut events) =
        chat_against(&format!("http://127.0.0.1:{port}/v1"), 8192).await;
    send(&serve, &id, "Write a long story about a lighthouse.").await;
    // The turn has begun: its request is on its way or being answered when the server dies.
    events.wait_for_phase("executing").await;
    llama.kill().await;

    assert_eq!(error_of_turn(&mut events).await, "ERR_PROVIDER_UNAVAILABLE");
    let chat = serve.chat(&id).await;
    assert_eq!(model_messages(&chat), Vec::<Value>::new(), "nothing half-stored: {chat}");
    assert!(said_failure(&chat).contains("the provider is unavailable"), "{chat}");

    let _back = LlamaServer::start_on(port, 8192).await;
    let (status, answer) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Say hi."})).await;
    assert_eq!(status, 202, "{answer}");
    events
        .wait_for_within(TURN, "the next turn's end", |name, data| {
            name == "plan_status" && data["phase"] == "idle"
        })
        .await;
    let chat = serve.chat(&id).await;
    assert!(!model_messages(&chat).is_empty(), "the chat goes on: {chat}");
}
