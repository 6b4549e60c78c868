//! The OpenAI-compatible client: posts to `{base_url}/chat/completions` and streams.

use reqwest::header::{HeaderMap, AUTHORIZATION};
use tokio_util::sync::CancellationToken;

use super::format;
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
        })
    }
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
        self.endpoint
            .stream(&format::to_request(&self.model, self.max_tokens, request), cancel)
            .await
    }
}
