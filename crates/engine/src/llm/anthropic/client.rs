//! The Anthropic client: posts to `{base_url}/v1/messages` and streams.

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderName, HeaderValue, ACCEPT, CONTENT_TYPE};
use tokio_util::sync::CancellationToken;

use super::format;
use crate::llm::http::{HttpClient, PostRequest, Wire};
use crate::llm::openai::{secret_header, unserialisable};
use crate::llm::settings::ANTHROPIC_DEFAULT_MAX_TOKENS;
use crate::llm::{ApiKey, LlmError, ModelRequest, Provider, ProviderSettings, ResponseStream, SetupError};

const WIRE: Wire = Wire {
    decoder: format::Decoder::boxed,
    error: format::parse_error,
};

const API_VERSION: &str = "2023-06-01";

pub struct AnthropicProvider {
    http: HttpClient,
    url: String,
    model: String,
    max_tokens: u32,
    headers: HeaderMap,
}

impl AnthropicProvider {
    pub fn new(settings: &ProviderSettings, key: ApiKey) -> Result<AnthropicProvider, SetupError> {
        let http = HttpClient::new(&settings.base_url, settings.timeouts, settings.retry)?;
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        headers.insert(HeaderName::from_static("anthropic-version"), HeaderValue::from_static(API_VERSION));
        headers.insert(HeaderName::from_static("x-api-key"), secret_header(key.expose())?);
        Ok(AnthropicProvider {
            http,
            url: format!("{}/v1/messages", settings.base_url.trim_end_matches('/')),
            model: settings.model.clone(),
            max_tokens: settings.max_tokens.unwrap_or(ANTHROPIC_DEFAULT_MAX_TOKENS),
            headers,
        })
    }
}

#[async_trait::async_trait]
impl Provider for AnthropicProvider {
    fn model(&self) -> &str {
        &self.model
    }

    async fn stream(&self, request: &ModelRequest, cancel: &CancellationToken) -> Result<ResponseStream, LlmError> {
        let body = format::to_request(&self.model, self.max_tokens, request);
        let request = PostRequest {
            url: self.url.clone(),
            headers: self.headers.clone(),
            body: Bytes::from(serde_json::to_vec(&body).map_err(unserialisable)?),
        };
        self.http.post_sse(request, WIRE, cancel).await
    }
}
