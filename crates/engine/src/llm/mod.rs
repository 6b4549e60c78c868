//! Model providers: OpenAI-compatible chat completions and Anthropic Messages, both over
//! HTTP with SSE streaming and tool calls (DESIGN §8); in-process models (the embedded
//! default) come in through the [`LocalModels`] seam.
//!
//! **Invariant:** one required method, [`Provider::stream`]; `complete` is built on it.
//! Wire formats (`openai/format.rs`, `anthropic/format.rs`, `sse.rs`, `assemble.rs`) are pure
//! functions tested on recorded answers; the clients (`*/client.rs`, `http.rs`) move bytes,
//! enforce timeouts, retry only before the first event, and stop when the token is cancelled.
//!
//! **Boundary:** no prompt policy, no tools, no store: a provider turns one [`ModelRequest`]
//! into one stream. Keys come in as [`ApiKey`] and never leave in an error or a `Debug`.

mod anthropic;
mod assemble;
mod budget;
mod constrained;
mod error;
mod http;
mod local;
mod openai;
mod retry;
mod settings;
pub mod sse;
mod types;

use std::fmt;
use std::pin::Pin;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

pub use anthropic::{format as anthropic_format, AnthropicProvider};
pub use assemble::{ToolCallAssembler, ToolCallDelta};
pub use budget::{known_window, Budget, DEFAULT_CONTEXT_WINDOW};
pub use constrained::Constrained;
pub use error::{LlmError, SetupError};
pub use local::LocalModels;
pub use openai::{format as openai_format, OpenAiProvider};
pub use retry::RetryPolicy;
pub use settings::{
    origin_of, ProviderKind, ProviderSettings, ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
};
pub use types::{
    FinishReason, ModelMessage, ModelRequest, ModelResponse, OutputConstraint, StreamEvent,
    Timeouts, Usage, SUMMARY_HEADER,
};

/// A model behind some API. Implementations are cheap to share (`Arc<dyn Provider>`).
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    /// The model's name, for logs and the UI.
    fn model(&self) -> &str;

    /// Sends `request` and streams the answer. Failures before the first event are retried
    /// per the provider's policy; the stream ends early with `Cancelled` once `cancel` fires.
    async fn stream(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError>;

    /// The tokens a request may take (DESIGN §13); by default the model's known window.
    fn budget(&self) -> Budget {
        Budget::for_model(None, self.model(), None)
    }

    /// The whole answer at once.
    async fn complete(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ModelResponse, LlmError> {
        self.stream(request, cancel).await?.collect().await
    }
}

/// A streaming answer: [`StreamEvent`]s, `Finished` last. After an error it yields nothing.
pub struct ResponseStream {
    inner: Pin<Box<dyn Stream<Item = Result<StreamEvent, LlmError>> + Send>>,
}

impl ResponseStream {
    pub fn new(
        stream: impl Stream<Item = Result<StreamEvent, LlmError>> + Send + 'static,
    ) -> ResponseStream {
        ResponseStream { inner: Box::pin(stream) }
    }

    pub async fn next(&mut self) -> Option<Result<StreamEvent, LlmError>> {
        self.inner.next().await
    }

    /// Reads the stream to its end. A stream that stops without `Finished` is cut.
    pub async fn collect(mut self) -> Result<ModelResponse, LlmError> {
        let mut text = String::new();
        let mut tool_calls = Vec::new();
        let mut usage = Usage::default();
        while let Some(event) = self.next().await {
            match event? {
                StreamEvent::TextDelta(delta) => text.push_str(&delta),
                StreamEvent::ToolCall(call) => tool_calls.push(call),
                StreamEvent::Usage(counted) => usage.add(counted),
                StreamEvent::Finished(finish) => {
                    return Ok(ModelResponse { text, tool_calls, usage, finish })
                }
            }
        }
        Err(LlmError::StreamCut { detail: "the stream ended without its final event".into() })
    }
}

/// An API key. Its `Debug` shows no part of it, and it has no `Display`: the only way to
/// the text is [`ApiKey::expose`], called where a request header is built.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    pub fn new(key: impl Into<String>) -> ApiKey {
        ApiKey(key.into())
    }

    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ApiKey(<redacted>)")
    }
}

/// The provider `settings` describe, with its key (looked up by `config::keys`).
pub fn build_provider(
    settings: &ProviderSettings,
    key: Option<ApiKey>,
) -> Result<Arc<dyn Provider>, SetupError> {
    match settings.kind {
        ProviderKind::Embedded => Err(SetupError::EmbeddedNotAvailable),
        ProviderKind::OpenAi => Ok(Arc::new(OpenAiProvider::new(settings, key)?)),
        ProviderKind::Anthropic => {
            let key = key.ok_or(SetupError::MissingKey {
                provider: "anthropic",
                looked_in: "no key was given".into(),
            })?;
            Ok(Arc::new(AnthropicProvider::new(settings, key)?))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_never_show_in_debug_output() {
        let key = ApiKey::new("sk-secret-123");
        let settings = format!("{:?}", Some(key.clone()));
        assert!(!settings.contains("secret"), "{settings}");
        assert_eq!(key.expose(), "sk-secret-123");
    }

    #[test]
    fn the_embedded_kind_is_a_clear_error_not_a_panic() {
        let error = build_provider(&ProviderSettings::embedded(), None).err().unwrap();
        assert_eq!(error, SetupError::EmbeddedNotAvailable);
        assert!(error.to_string().contains("the embedded model is not available yet"));
    }

    #[test]
    fn anthropic_without_a_key_is_refused() {
        let settings = ProviderSettings::new(ProviderKind::Anthropic, ANTHROPIC_BASE_URL, "claude");
        assert!(matches!(build_provider(&settings, None), Err(SetupError::MissingKey { .. })));
    }
}
