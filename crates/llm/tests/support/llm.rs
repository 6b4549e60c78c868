//! Shared set-up for the provider tests: settings pointing at a scripted server, with
//! timeouts and retries short enough that a test takes milliseconds.

use std::sync::Arc;
use std::time::Duration;

use preflight_llm::{
    build_provider, ApiKey, LlmError, ModelMessage, ModelRequest, Provider, ProviderKind,
    ProviderSettings, ResponseStream, RetryPolicy, StreamEvent, Timeouts,
};
use preflight_testkit::ScriptedServer;

pub const KEY: &str = "sk-test-0123456789";

/// Retries quickly: three retries, 10 ms apart and doubling, within a second.
pub fn quick_retries() -> RetryPolicy {
    RetryPolicy {
        max_retries: 2,
        first_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_secs(1),
        budget: Duration::from_secs(2),
    }
}

pub fn settings(kind: ProviderKind, server: &ScriptedServer) -> ProviderSettings {
    let url = match kind {
        ProviderKind::OpenAi => server.openai_url(),
        _ => server.url(),
    };
    let mut settings = ProviderSettings::new(kind, url, "test-model");
    settings.timeouts = Timeouts { connect: Duration::from_secs(2), idle: Duration::from_secs(10) };
    settings.retry = quick_retries();
    settings
}

pub fn provider(settings: &ProviderSettings) -> Arc<dyn Provider> {
    build_provider(settings, Some(ApiKey::new(KEY))).expect("the provider builds")
}

pub fn ask(text: &str) -> ModelRequest {
    ModelRequest {
        system: "You are a test.".into(),
        messages: vec![ModelMessage::user(text)],
        tools: vec![],
        tail: None,
        ..ModelRequest::default()
    }
}

/// Every event of the stream up to its end or its first error.
pub async fn drain(mut stream: ResponseStream) -> (Vec<StreamEvent>, Option<LlmError>) {
    let mut events = Vec::new();
    while let Some(event) = stream.next().await {
        match event {
            Ok(event) => events.push(event),
            Err(error) => return (events, Some(error)),
        }
    }
    (events, None)
}

pub fn text_of(events: &[StreamEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            StreamEvent::TextDelta(text) => Some(text.as_str()),
            _ => None,
        })
        .collect()
}
