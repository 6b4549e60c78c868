//! The OpenAI-compatible client: posts to `{base_url}/chat/completions` and streams.

use bytes::Bytes;
use reqwest::header::{HeaderMap, HeaderValue, ACCEPT, AUTHORIZATION, CONTENT_TYPE};
use tokio_util::sync::CancellationToken;

use super::format;
use crate::llm::http::{HttpClient, PostRequest, Wire};
use crate::llm::{ApiKey, LlmError, ModelRequest, Provider, ProviderSettings, ResponseStream, SetupError};

const WIRE: Wire = Wire {
    decoder: format::Decoder::boxed,
    error: format::parse_error,
};

/// OpenAI, Ollama, llama.cpp's server, vLLM, LM Studio: same code, another base URL.
pub struct OpenAiProvider {
    http: HttpClient,
    url: String,
    model: String,
    max_tokens: Option<u32>,
    headers: HeaderMap,
}

impl OpenAiProvider {
    /// `key` is optional: local servers take none.
    pub fn new(settings: &ProviderSettings, key: Option<ApiKey>) -> Result<OpenAiProvider, SetupError> {
        let http = HttpClient::new(&settings.base_url, settings.timeouts, settings.retry)?;
        let mut headers = HeaderMap::new();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
        headers.insert(ACCEPT, HeaderValue::from_static("text/event-stream"));
        if let Some(key) = key {
            headers.insert(AUTHORIZATION, secret_header(&format!("Bearer {}", key.expose()))?);
        }
        Ok(OpenAiProvider {
            http,
            url: format!("{}/chat/completions", settings.base_url.trim_end_matches('/')),
            model: settings.model.clone(),
            max_tokens: settings.max_tokens,
            headers,
        })
    }
}

#[async_trait::async_trait]
impl Provider for OpenAiProvider {
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

/// A header value that `Debug` output and reqwest's logs show as `Sensitive`.
pub(crate) fn secret_header(value: &str) -> Result<HeaderValue, SetupError> {
    let mut header = HeaderValue::from_str(value).map_err(|_| SetupError::KeyStore {
        detail: "the API key holds characters an HTTP header cannot carry".into(),
    })?;
    header.set_sensitive(true);
    Ok(header)
}

/// Our own request types always serialise; kept typed rather than a panic all the same.
pub(crate) fn unserialisable(error: serde_json::Error) -> LlmError {
    LlmError::BadResponse { detail: format!("the request could not be written: {error}") }
}
