//! The OpenAI-compatible client: posts to `{base_url}/chat/completions` and streams, or reads
//! whole answers from a server that needs them (`../compat.rs`).

use std::time::Duration;

use reqwest::header::{HeaderMap, AUTHORIZATION};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use super::format;
use crate::compat::{Quirks, ServerCompat};
use crate::http::{secret_header, Endpoint, Wire};
use crate::{
    ApiKey, Budget, LlmError, ModelRequest, Provider, ProviderSettings, ResponseStream, SetupError,
};

const WIRE: Wire = Wire { decoder: format::Decoder::boxed, error: format::parse_error };

/// How long `compat = "auto"` waits for the server's model list before writing the request
/// the standard way (asked again on the next call).
const DETECT_TIMEOUT: Duration = Duration::from_secs(5);

/// OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio: same code, another base URL.
pub struct OpenAiProvider {
    endpoint: Endpoint,
    model: String,
    max_tokens: Option<u32>,
    budget: Budget,
    sees_images: bool,
    compat: ServerCompat,
    /// What `compat = "auto"` learnt from the server, once it answered.
    detected: OnceCell<Quirks>,
}

impl OpenAiProvider {
    /// `key` is optional: local servers take none.
    pub fn new(
        settings: &ProviderSettings,
        key: Option<ApiKey>,
    ) -> Result<OpenAiProvider, SetupError> {
        let mut headers = HeaderMap::new();
        if let Some(key) = key {
            headers.insert(AUTHORIZATION, secret_header(&format!("Bearer {}", key.expose()))?);
        }
        Ok(OpenAiProvider {
            endpoint: Endpoint::new(settings, "/chat/completions", headers, WIRE)?,
            model: settings.model.clone(),
            max_tokens: settings.max_tokens,
            budget: settings.budget(),
            sees_images: settings.sees_images(),
            compat: settings.compat,
            detected: OnceCell::new(),
        })
    }

    /// The server's quirks: as configured, else asked of its model list once. A server that
    /// answers the list with an error is standard; one that cannot be reached in time leaves
    /// this request standard and is asked again next time.
    async fn quirks(&self, cancel: &CancellationToken) -> Quirks {
        if let Some(quirks) = self.compat.quirks() {
            return quirks;
        }
        let detect = self.detected.get_or_try_init(|| async {
            let asked = self.endpoint.get_json("/models", cancel);
            let listed = match tokio::time::timeout(DETECT_TIMEOUT, asked).await {
                Ok(Ok(listed)) => listed,
                Ok(Err(error)) if answered(&error) => return Ok(Quirks::STANDARD),
                Ok(Err(error)) => return Err(error),
                Err(_) => return Err(LlmError::IdleTimeout { after: DETECT_TIMEOUT }),
            };
            let quirks = Quirks::of_model_list(&listed);
            tracing::debug!(model = %self.model, ?quirks, "the server's quirks, from its model list");
            Ok(quirks)
        });
        match detect.await {
            Ok(quirks) => *quirks,
            Err(error) => {
                tracing::debug!(%error, "the server's model list did not come; a standard request");
                Quirks::STANDARD
            }
        }
    }
}

/// Whether the server answered (with an error status or something that is not a list).
fn answered(error: &LlmError) -> bool {
    !matches!(
        error,
        LlmError::Unavailable { status: None, .. }
            | LlmError::IdleTimeout { .. }
            | LlmError::StreamCut { .. }
            | LlmError::Cancelled
    )
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
    fn model(&self) -> &str {
        &self.model
    }

    fn budget(&self) -> Budget {
        self.budget
    }

    fn sees_images(&self) -> bool {
        self.sees_images
    }

    async fn stream(
        &self,
        request: &ModelRequest,
        cancel: &CancellationToken,
    ) -> Result<ResponseStream, LlmError> {
        let quirks = self.quirks(cancel).await;
        let body = format::to_request(&self.model, self.max_tokens, request, quirks);
        match quirks.whole_answers {
            true => self.endpoint.whole(&body, cancel).await,
            false => self.endpoint.stream(&body, cancel).await,
        }
    }
}
