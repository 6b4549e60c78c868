//! The one seam every model sits behind: [`Provider`] (one required method, `stream`;
//! `complete` is built on it) and the [`ResponseStream`] it answers with.

use std::pin::Pin;

use futures_util::{Stream, StreamExt};
use tokio_util::sync::CancellationToken;

use crate::budget::Budget;
use crate::error::LlmError;
use crate::types::{ModelRequest, ModelResponse, StreamEvent, Usage};

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

    /// Whether the model can call tools; the embedded tiny model cannot.
    fn calls_tools(&self) -> bool {
        true
    }

    /// Whether the model is shown images (DESIGN §15). A message with images to one that
    /// is not is refused before it is stored; by default a model is not.
    fn sees_images(&self) -> bool {
        false
    }

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
