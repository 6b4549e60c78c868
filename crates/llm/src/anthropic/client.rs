//! The Anthropic client: posts to `{base_url}/v1/messages` and streams.

use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use tokio_util::sync::CancellationToken;

use super::format;
use crate::http::{secret_header, Endpoint, Wire};
use crate::settings::ANTHROPIC_DEFAULT_MAX_TOKENS;
use crate::{
    ApiKey, LlmError, ModelRequest, Provider, ProviderSettings, ResponseStream, SetupError,
};

const WIRE: Wire = Wire { decoder: format::Decoder::boxed, error: format::parse_error };

pub(crate) const API_VERSION: &str = "2023-06-01";

pub struct AnthropicProvider {
    endpoint: Endpoint,
    model: String,
    max_tokens: u32,
    budget: crate::Budget,
    sees_images: bool,
}

impl AnthropicProvider {
    pub fn new(settings: &ProviderSettings, key: ApiKey) -> Result<AnthropicProvider, SetupError> {
        let mut headers = HeaderMap::new();
        headers.insert(
            HeaderName::from_static("anthropic-version"),
            HeaderValue::from_static(API_VERSION),
        );
        headers.insert(HeaderName::from_static("x-api-key"), secret_header(key.expose())?);
        Ok(AnthropicProvider {
            endpoint: Endpoint::new(settings, "/v1/messages", headers, WIRE)?,
            model: settings.model.clone(),
            max_tokens: settings.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS),
            budget: crate::Budget::for_model(
                settings.context_window,
                &settings.model,
                Some(settings.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS)),
            ),
            sees_images: settings.sees_images(),
        })
    }
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    fn model(&self) -> &str {
        &self.model
    }

    fn budget(&self) -> crate::Budget {
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
