//! The OpenAI-compatible client: posts to `{base_url}/chat/completions` and streams, or reads
//! whole answers from a server that needs them (`../compat.rs`).

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

    /// The server's quirks: as configured, else asked of its model list once. The list is
    /// waited for as a request's head is (llama-cpp-python answers it only once the model is
    /// free), so a busy server is not mistaken for a standard one. A server that says it has
    /// no such list is standard; one that cannot be reached, or fails for now (429, 5xx),
    /// leaves this request standard and is asked again next time.
    async fn quirks(&self, cancel: &CancellationToken) -> Quirks {
        if let Some(quirks) = self.compat.quirks() {
            return quirks;
        }
        let detect = self.detected.get_or_try_init(|| async {
            let quirks = match self.endpoint.get_json("/models", cancel).await {
                Ok(listed) => Quirks::of_model_list(&listed),
                Err(error) if has_no_list(&error) => Quirks::STANDARD,
                Err(error) => return Err(error),
            };
            tracing::debug!(model = %self.model, ?quirks, "the server's quirks, from its model list");
            Ok(quirks)
        });
        match detect.await {
            Ok(quirks) => *quirks,
            Err(error) => {
                tracing::info!(%error, "the server's model list did not come; a standard request");
                Quirks::STANDARD
            }
        }
    }
}

/// Whether the server answered that it has no model list to give (not found, not allowed,
/// not a list): it will not have one later either.
fn has_no_list(error: &LlmError) -> bool {
    matches!(
        error,
        LlmError::Rejected { status: 400 | 404 | 405 | 501, .. } | LlmError::BadResponse { .. }
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
