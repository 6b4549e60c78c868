//! The embedded provider on the real default model, as the agent loop uses it: a stop ends
//! the stream and frees the model, a conversation too long is `ContextTooLong` (never a
//! crash), and a turn that offers tools gets plain text that says so.

mod support;

use preflight_embedded::{EmbeddedProvider, Threads, TOOLS_NOTE};
use preflight_engine::llm::{
    FinishReason, LlmError, ModelMessage, ModelRequest, Provider, StreamEvent,
};
use preflight_engine::tool::ToolSpec;
use tokio_util::sync::CancellationToken;

fn provider(max_tokens: u32) -> EmbeddedProvider {
    EmbeddedProvider::new(support::load("smollm2"), max_tokens, Threads::Adaptive)
}

fn ask(text: &str) -> ModelRequest {
    ModelRequest {
        system: "You are a helpful assistant.".into(),
        messages: vec![ModelMessage::user(text)],
        ..ModelRequest::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_ends_the_stream_and_frees_the_model() {
    let provider = provider(512);
    let cancel = CancellationToken::new();
    let mut stream = provider
        .stream(&ask("Tell me a long story about a lighthouse keeper."), &cancel)
        .await
        .unwrap();
    let first = stream.next().await;
    assert!(matches!(first, Some(Ok(StreamEvent::TextDelta(_)))), "{first:?}");
    cancel.cancel();
    assert_eq!(stream.next().await, Some(Err(LlmError::Cancelled)));
    assert_eq!(stream.next().await, None, "nothing after the stop");

    let answer = provider.complete(&ask("Say hello."), &CancellationToken::new()).await.unwrap();
    assert!(!answer.text.trim().is_empty(), "the next turn runs: {answer:?}");
    assert!(answer.usage.input_tokens > 0 && answer.usage.output_tokens > 0, "{:?}", answer.usage);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversation_too_long_for_the_context_is_a_clear_error() {
    let long = "word ".repeat(40_000);
    let error = provider(256).complete(&ask(&long), &CancellationToken::new()).await.unwrap_err();
    assert!(matches!(error, LlmError::ContextTooLong { .. }), "{error:?}");
    assert_eq!(error.code(), "ERR_CONTEXT_TOO_LONG");
    assert!(error.to_string().contains("start a new chat"), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_that_offers_tools_gets_plain_text_that_says_so() {
    let tool = ToolSpec {
        name: "read_file".into(),
        description: "Reads a file".into(),
        input_schema: serde_json::json!({"type": "object", "properties": {"path": {"type": "string"}}}),
    };
    let request = ModelRequest { tools: vec![tool], ..ask("What is in README.md?") };
    let answer = provider(64).complete(&request, &CancellationToken::new()).await.unwrap();
    assert!(answer.text.starts_with(TOOLS_NOTE), "{}", answer.text);
    assert!(answer.tool_calls.is_empty());
    assert!(
        matches!(answer.finish, FinishReason::Stop | FinishReason::Length),
        "{:?}",
        answer.finish
    );
}
