//! The OpenAI-compatible client against the scripted server over loopback: streaming,
//! tool-call assembly, retries, timeouts, cancellation, typed errors.

mod support;

use std::time::{Duration, Instant};

use preflight_llm::{FinishReason, LlmError, ProviderKind, StreamEvent, Usage};
use preflight_protocol::chat::ToolCall;
use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::json;
use support::llm::*;
use tokio_util::sync::CancellationToken;

async fn server(replies: Vec<Reply>) -> ScriptedServer {
    ScriptedServer::start(Script::replies(replies)).await.unwrap()
}

#[tokio::test]
async fn streams_text_deltas_usage_and_the_finish() {
    let server =
        server(vec![Answer::new().words("Hello from the script").usage(30, 4).into()]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let stream = provider.stream(&ask("hi"), &CancellationToken::new()).await.unwrap();
    let (events, error) = drain(stream).await;
    assert_eq!(error, None);
    assert_eq!(text_of(&events), "Hello from the script");
    assert_eq!(events.iter().filter(|e| matches!(e, StreamEvent::TextDelta(_))).count(), 4);
    let tail = &events[events.len() - 2..];
    assert_eq!(
        tail,
        [
            StreamEvent::Usage(Usage {
                input_tokens: 30,
                output_tokens: 4,
                cached_input_tokens: 0
            }),
            StreamEvent::Finished(FinishReason::Stop)
        ]
    );

    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    assert_eq!(request.body["model"], "test-model");
    assert_eq!(request.body["stream_options"], json!({"include_usage": true}));
    assert_eq!(request.system(), "You are a test.");
}

#[tokio::test]
async fn streamed_tool_call_fragments_arrive_as_whole_calls() {
    let answer = Answer::new()
        .text("Reading both.")
        .tool_call("read", json!({"path": "src/main.rs"}))
        .tool_call("turn_plan", json!({"op": "start", "id": 2}));
    let server = server(vec![answer.into()]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let response = provider.complete(&ask("go"), &CancellationToken::new()).await.unwrap();
    assert_eq!(response.text, "Reading both.");
    assert_eq!(response.finish, FinishReason::ToolCalls);
    assert_eq!(
        response.tool_calls,
        vec![
            ToolCall {
                id: "call_scripted_0".into(),
                name: "read".into(),
                arguments: r#"{"path":"src/main.rs"}"#.into()
            },
            ToolCall {
                id: "call_scripted_1".into(),
                name: "turn_plan".into(),
                arguments: r#"{"op":"start","id":2}"#.into()
            },
        ]
    );
}

#[tokio::test]
async fn a_rate_limit_waits_for_retry_after_then_succeeds() {
    let server = server(vec![Reply::rate_limited("0.2"), Reply::text("after the wait")]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let started = Instant::now();
    let response = provider.complete(&ask("hi"), &CancellationToken::new()).await.unwrap();
    assert!(started.elapsed() >= Duration::from_millis(200), "retry-after was not honoured");
    assert_eq!(response.text, "after the wait");
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn a_retry_after_longer_than_any_wait_fails_at_once_with_the_wait() {
    let server = server(vec![Reply::rate_limited("120"), Reply::text("never asked for")]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let error = provider.complete(&ask("hi"), &CancellationToken::new()).await.unwrap_err();
    assert!(
        matches!(error, LlmError::RateLimited { retry_after: Some(wait), .. } if wait == Duration::from_secs(120)),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn server_errors_are_retried_then_reported_typed() {
    let server = server(vec![
        Reply::status(500),
        Reply::status(502),
        Reply::status(503),
        Reply::text("too late"),
    ])
    .await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let error = provider.complete(&ask("hi"), &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LlmError::Unavailable { status: Some(503), .. }), "{error:?}");
    assert_eq!(server.requests().len(), 3, "one call and two retries");
}

#[tokio::test]
async fn a_request_error_is_not_retried() {
    let body = r#"{"error":{"message":"This model's maximum context length is 8192 tokens.","type":"invalid_request_error","code":"context_length_exceeded"}}"#;
    let server = server(vec![Reply::status_with_body(400, body), Reply::text("never")]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server));
    let error = provider.complete(&ask("hi"), &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LlmError::ContextTooLong { .. }), "{error:?}");
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_before_its_first_event_is_retried_and_one_cut_later_is_not() {
    let early = server(vec![Answer::new().cut().into(), Reply::text("second try")]).await;
    let response = provider(&settings(ProviderKind::OpenAi, &early))
        .complete(&ask("hi"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((response.text.as_str(), early.requests().len()), ("second try", 2));

    let late = server_with_cut_after_text().await;
    let stream = provider(&settings(ProviderKind::OpenAi, &late))
        .stream(&ask("hi"), &CancellationToken::new())
        .await
        .unwrap();
    let (events, error) = drain(stream).await;
    assert_eq!(text_of(&events), "partial answer");
    assert!(matches!(error, Some(LlmError::StreamCut { .. })), "{error:?}");
    assert_eq!(late.requests().len(), 1, "text was handed on: no retry");
}

async fn server_with_cut_after_text() -> ScriptedServer {
    server(vec![Answer::new().words("partial answer").cut().into(), Reply::text("never")]).await
}

#[tokio::test]
async fn a_stalled_stream_ends_with_an_idle_timeout() {
    let server = server(vec![Answer::new().text("thinking…").stall().into()]).await;
    let mut settings = settings(ProviderKind::OpenAi, &server);
    settings.timeouts.idle = Duration::from_millis(150);
    let provider = provider(&settings);
    let started = Instant::now();
    let stream = provider.stream(&ask("hi"), &CancellationToken::new()).await.unwrap();
    let (events, error) = drain(stream).await;
    assert_eq!(text_of(&events), "thinking…");
    assert_eq!(error, Some(LlmError::IdleTimeout { after: Duration::from_millis(150) }));
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[tokio::test]
async fn cancelling_ends_the_stream_at_once() {
    let server = server(vec![Answer::new().text("first").stall().into()]).await;
    let provider = provider(&settings(ProviderKind::OpenAi, &server)); // idle timeout: 10 s
    let cancel = CancellationToken::new();
    let mut stream = provider.stream(&ask("hi"), &cancel).await.unwrap();
    assert_eq!(stream.next().await, Some(Ok(StreamEvent::TextDelta("first".into()))));
    let started = Instant::now();
    cancel.cancel();
    assert_eq!(stream.next().await, Some(Err(LlmError::Cancelled)));
    assert_eq!(stream.next().await, None);
    assert!(started.elapsed() < Duration::from_secs(1));
}

#[tokio::test]
async fn a_server_that_is_not_there_is_unavailable() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/v1", listener.local_addr().unwrap());
    drop(listener);
    let mut settings = preflight_llm::ProviderSettings::new(ProviderKind::OpenAi, url, "m");
    settings.retry = quick_retries();
    let error =
        provider(&settings).complete(&ask("hi"), &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LlmError::Unavailable { status: None, .. }), "{error:?}");
    assert!(error.to_string().contains("cannot connect"), "{error}");
}

#[tokio::test]
async fn a_local_server_needs_no_key() {
    let server = server(vec![Reply::text("ok")]).await;
    let settings = settings(ProviderKind::OpenAi, &server);
    let provider = preflight_llm::build_provider(&settings, None).unwrap();
    provider.complete(&ask("hi"), &CancellationToken::new()).await.unwrap();
    assert_eq!(server.requests()[0].header("authorization"), None);
}
