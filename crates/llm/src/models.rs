//! The models a provider serves, as Settings' "Test connection" lists them (issue 48): one
//! GET of `{base_url}/models` (OpenAI-compatible servers: OpenAI, Ollama, llama.cpp, vLLM)
//! or `{base_url}/v1/models` (Anthropic), with the key the chat would send, short timeouts
//! and no retries, so that a server that is down is known in seconds.

use std::time::Duration;

use reqwest::header::{HeaderMap, HeaderName, HeaderValue, AUTHORIZATION};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::http::{secret_header, HttpClient};
use crate::{anthropic, openai, ApiKey, LlmError, ProviderKind, ProviderSettings, RetryPolicy};
use crate::{SetupError, Timeouts};

/// The longest a connection test waits to connect, and then for the answer.
const TEST_TIMEOUTS: Timeouts =
    Timeouts { connect: Duration::from_secs(3), idle: Duration::from_secs(10) };

/// A wire format's classifier of an error status and its body.
type ErrorOf = fn(u16, Option<Duration>, &str) -> LlmError;

/// Why a provider's models could not be listed.
#[derive(Debug, thiserror::Error)]
pub enum ListError {
    /// The settings cannot make a client (a bad base URL, a key a header cannot carry).
    #[error(transparent)]
    Setup(#[from] SetupError),
    /// The server answered with an error, or not at all.
    #[error(transparent)]
    Call(#[from] LlmError),
}

/// The ids of the models the provider of `settings` serves, sorted; `key` is sent as the
/// chat would send it. The embedded model has no server: an empty list.
pub async fn list_models(
    settings: &ProviderSettings,
    key: Option<&ApiKey>,
    cancel: &CancellationToken,
) -> Result<Vec<String>, ListError> {
    let (path, headers, error): (&str, HeaderMap, ErrorOf) = match settings.kind {
        ProviderKind::Embedded => return Ok(Vec::new()),
        ProviderKind::OpenAi => ("/models", openai_headers(key)?, openai::format::parse_error),
        ProviderKind::Anthropic => {
            ("/v1/models", anthropic_headers(key)?, anthropic::format::parse_error)
        }
    };
    let http = HttpClient::new(&settings.base_url, TEST_TIMEOUTS, RetryPolicy::NEVER)?;
    let url = format!("{}{path}", settings.base_url.trim_end_matches('/'));
    let listed = http.get_json(&url, headers, error, cancel).await?;
    Ok(model_ids(&listed)?)
}

fn openai_headers(key: Option<&ApiKey>) -> Result<HeaderMap, SetupError> {
    let mut headers = HeaderMap::new();
    if let Some(key) = key {
        headers.insert(AUTHORIZATION, secret_header(&format!("Bearer {}", key.expose()))?);
    }
    Ok(headers)
}

fn anthropic_headers(key: Option<&ApiKey>) -> Result<HeaderMap, SetupError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        HeaderName::from_static("anthropic-version"),
        HeaderValue::from_static(anthropic::client::API_VERSION),
    );
    if let Some(key) = key {
        headers.insert(HeaderName::from_static("x-api-key"), secret_header(key.expose())?);
    }
    Ok(headers)
}

/// `{"data": [{"id": …}, …]}` (both APIs' shape) → the ids, sorted. Pure.
fn model_ids(listed: &Value) -> Result<Vec<String>, LlmError> {
    let data = listed.get("data").and_then(Value::as_array).ok_or_else(|| {
        LlmError::BadResponse { detail: "the model list has no `data` array".into() }
    })?;
    let mut ids: Vec<String> =
        data.iter().filter_map(|model| model.get("id")?.as_str()).map(str::to_owned).collect();
    ids.sort();
    ids.dedup();
    Ok(ids)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ids_are_read_sorted_from_either_apis_list() {
        let listed = json!({"object": "list", "data": [
            {"id": "qwen2.5:7b", "object": "model"}, {"id": "llama3.2"}, {"no_id": true}
        ]});
        assert_eq!(model_ids(&listed).unwrap(), ["llama3.2", "qwen2.5:7b"]);
        assert!(model_ids(&json!({"models": []})).is_err(), "not a model list");
    }
}
