//! The Anthropic client against the scripted server over loopback.

mod support;

use std::time::Duration;

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
async fn streams_text_and_tool_use_with_the_vendor_headers() {
    let answer = Answer::new()
        .words("Let me read it.")
        .tool_call("read", json!({"path": "a.txt"}))
        .usage(40, 9);
    let server = server(vec![answer.into()]).await;
    let provider = provider(&settings(ProviderKind::Anthropic, &server));
    let stream = provider.stream(&ask("read a.txt"), &CancellationToken::new()).await.unwrap();
    let (events, error) = drain(stream).await;
    assert_eq!(error, None);
    assert_eq!(text_of(&events), "Let me read it.");
    let tail = &events[events.len() - 3..];
    assert_eq!(
        tail,
        [
            StreamEvent::ToolCall(ToolCall {
                id: "toolu_scripted_4".into(),
                name: "read".into(),
                arguments: r#"{"path":"a.txt"}"#.into()
            }),
            StreamEvent::Usage(Usage {
                input_tokens: 40,
                output_tokens: 9,
                cached_input_tokens: 0
            }),
            StreamEvent::Finished(FinishReason::ToolCalls),
        ]
    );
    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/messages");
    assert_eq!(request.header("x-api-key"), Some(KEY));
    assert_eq!(request.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(request.header("authorization"), None);
    assert_eq!(request.body["max_tokens"], 4096);
    assert_eq!(request.system(), "You are a test.");
}

#[tokio::test]
async fn overloaded_is_retried_and_a_bad_key_is_not() {
    let overloaded = server(vec![Reply::status(529), Reply::text("fine now")]).await;
    let response = provider(&settings(ProviderKind::Anthropic, &overloaded))
        .complete(&ask("hi"), &CancellationToken::new())
        .await
        .unwrap();
    assert_eq!((response.text.as_str(), overloaded.requests().len()), ("fine now", 2));

    let refusing = server(vec![Reply::status(401), Reply::text("never")]).await;
    let error = provider(&settings(ProviderKind::Anthropic, &refusing))
        .complete(&ask("hi"), &CancellationToken::new())
        .await
        .unwrap_err();
    assert!(matches!(error, LlmError::Unauthorized { status: 401, .. }), "{error:?}");
    assert_eq!(refusing.requests().len(), 1);
}

#[tokio::test]
async fn cut_stall_and_cancel() {
    let server = server(vec![
        Answer::new().text("half").cut().into(),
        Answer::new().text("waiting").stall().into(),
        Answer::new().text("waiting").stall().into(),
    ])
    .await;
    let mut settings = settings(ProviderKind::Anthropic, &server);
    settings.timeouts.idle = Duration::from_millis(150);
    let provider = provider(&settings);
    let never = CancellationToken::new();

    let (_, error) = drain(provider.stream(&ask("1"), &never).await.unwrap()).await;
    assert!(matches!(error, Some(LlmError::StreamCut { .. })), "{error:?}");

    let (_, error) = drain(provider.stream(&ask("2"), &never).await.unwrap()).await;
    assert_eq!(error, Some(LlmError::IdleTimeout { after: Duration::from_millis(150) }));

    let cancel = CancellationToken::new();
    let mut stream = provider.stream(&ask("3"), &cancel).await.unwrap();
    assert_eq!(stream.next().await, Some(Ok(StreamEvent::TextDelta("waiting".into()))));
    cancel.cancel();
    assert_eq!(stream.next().await, Some(Err(LlmError::Cancelled)));
}
