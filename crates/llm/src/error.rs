//! What can go wrong talking to a model, typed so that callers branch on it (retry, compact
//! the history, ask for a key, fall back) instead of reading messages.

use std::time::Duration;

use preflight_protocol::error_code::ErrorCode;

/// An error of one model call. Messages come from the provider where it sent one; they never
/// contain the API key.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LlmError {
    #[error("the provider is rate limiting requests{}: {message}", after(.retry_after))]
    RateLimited { retry_after: Option<Duration>, message: String },
    /// The prompt (history plus tools) does not fit the model's context window.
    #[error("the conversation is too long for the model's context: {message}")]
    ContextTooLong { message: String },
    #[error("the provider refused the API key (HTTP {status}): {message}")]
    Unauthorized { status: u16, message: String },
    /// Unreachable, overloaded or failing on its side (connection refused, 5xx, 529).
    #[error("the provider is unavailable{}: {message}", status_text(.status))]
    Unavailable { status: Option<u16>, message: String },
    /// Nothing arrived for `after`, before the answer's head or between two of its chunks.
    #[error("the provider sent nothing for {} s", .after.as_secs_f64())]
    IdleTimeout { after: Duration },
    /// The connection ended before the answer's final event.
    #[error("the answer stream ended early: {detail}")]
    StreamCut { detail: String },
    /// A request the provider will not serve as sent: unknown model, bad parameters, no quota.
    #[error("the provider rejected the request (HTTP {status}): {message}")]
    Rejected { status: u16, message: String },
    /// The provider answered something that is not its wire format.
    #[error("the provider's answer could not be read: {detail}")]
    BadResponse { detail: String },
    #[error("the model call was stopped")]
    Cancelled,
}

impl LlmError {
    /// Whether sending the same request again may succeed. Only ever acted on before any
    /// part of the answer was handed on (see `retry.rs`).
    pub fn is_retryable(&self) -> bool {
        matches!(
            self,
            LlmError::RateLimited { .. }
                | LlmError::Unavailable { .. }
                | LlmError::IdleTimeout { .. }
                | LlmError::StreamCut { .. }
        )
    }

    /// The code the chat's `error` event and the API show for this failure.
    pub fn code(&self) -> ErrorCode {
        match self {
            LlmError::RateLimited { .. } => ErrorCode::ProviderRateLimited,
            LlmError::ContextTooLong { .. } => ErrorCode::ContextTooLong,
            LlmError::Unauthorized { .. } => ErrorCode::ProviderUnauthorized,
            LlmError::Unavailable { .. } => ErrorCode::ProviderUnavailable,
            LlmError::IdleTimeout { .. } => ErrorCode::ProviderTimeout,
            LlmError::StreamCut { .. } => ErrorCode::ProviderStreamCut,
            LlmError::Rejected { .. } => ErrorCode::ProviderRejected,
            LlmError::BadResponse { .. } => ErrorCode::ProviderBadResponse,
            LlmError::Cancelled => ErrorCode::Cancelled,
        }
    }

    /// Whether every request to the same provider would fail the same way now: it cannot be
    /// reached at all (no HTTP status came back), or it refused the key.
    pub fn refuses_everyone(&self) -> bool {
        matches!(self, LlmError::Unavailable { status: None, .. } | LlmError::Unauthorized { .. })
    }

    pub fn bad_response(detail: impl Into<String>) -> LlmError {
        LlmError::BadResponse { detail: detail.into() }
    }
}

/// Why a provider could not be built from its settings.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SetupError {
    /// `kind = "embedded"`: the in-process model arrives in a later release.
    #[error(
        "the embedded model is not available yet; configure an `openai` or `anthropic` \
         [provider] in config.toml"
    )]
    EmbeddedNotAvailable,
    /// The embedded model cannot run: not installed, unreadable, or a CPU it was not built for.
    #[error("the embedded model cannot start: {detail}")]
    EmbeddedModel { detail: String },
    #[error("no API key for the {provider} provider: {looked_in}")]
    MissingKey {
        provider: &'static str,
        /// Where the key was looked for, for the user to put it in one of them.
        looked_in: String,
    },
    #[error("the key store failed: {detail}")]
    KeyStore { detail: String },
    #[error("invalid base URL {url:?}: {reason}")]
    BadBaseUrl { url: String, reason: String },
    #[error("cannot build the HTTP client: {detail}")]
    Http { detail: String },
}

fn after(retry_after: &Option<Duration>) -> String {
    match retry_after {
        Some(wait) => format!(" (retry after {} s)", wait.as_secs_f64()),
        None => String::new(),
    }
}

fn status_text(status: &Option<u16>) -> String {
    status.map(|s| format!(" (HTTP {s})")).unwrap_or_default()
}

/// Classifies an HTTP error status the way every provider uses it; the wire formats refine
/// it from the body (a 400 that says the context is too long, a 429 that is a used-up quota).
pub(crate) fn error_for_status(
    status: u16,
    retry_after: Option<Duration>,
    message: String,
) -> LlmError {
    match status {
        401 | 403 => LlmError::Unauthorized { status, message },
        429 => LlmError::RateLimited { retry_after, message },
        413 => LlmError::ContextTooLong { message },
        408 | 500..=599 => LlmError::Unavailable { status: Some(status), message },
        _ => LlmError::Rejected { status, message },
    }
}

/// Checks a format's error classifier against its recorded error answers: a JSON list of
/// `{status, body, code, message?}`, `body` being the JSON the server sent or its raw text.
#[cfg(test)]
pub(crate) fn check_recorded_errors(
    recorded: &str,
    parse: fn(u16, Option<Duration>, &str) -> LlmError,
) {
    let cases: Vec<serde_json::Value> = serde_json::from_str(recorded).unwrap();
    for case in cases {
        let body = match &case["body"] {
            serde_json::Value::String(raw) => raw.clone(),
            json => json.to_string(),
        };
        let error = parse(case["status"].as_u64().unwrap() as u16, None, &body);
        assert_eq!(error.code().as_str(), case["code"], "{case}");
        if let Some(message) = case.get("message") {
            assert_eq!(error.to_string(), *message, "{case}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_map_to_what_callers_branch_on() {
        let cases: [(u16, &str); 7] = [
            (401, "ERR_PROVIDER_UNAUTHORIZED"),
            (403, "ERR_PROVIDER_UNAUTHORIZED"),
            (429, "ERR_PROVIDER_RATE_LIMITED"),
            (413, "ERR_CONTEXT_TOO_LONG"),
            (500, "ERR_PROVIDER_UNAVAILABLE"),
            (529, "ERR_PROVIDER_UNAVAILABLE"),
            (404, "ERR_PROVIDER_REJECTED"),
        ];
        for (status, code) in cases {
            assert_eq!(error_for_status(status, None, "m".into()).code(), code, "{status}");
        }
    }

    #[test]
    fn only_transient_errors_are_retryable() {
        assert!(error_for_status(503, None, String::new()).is_retryable());
        assert!(error_for_status(429, None, String::new()).is_retryable());
        assert!(!error_for_status(400, None, String::new()).is_retryable());
        assert!(!LlmError::Cancelled.is_retryable());
        assert!(!LlmError::ContextTooLong { message: String::new() }.is_retryable());
    }

    #[test]
    fn rate_limit_message_names_the_wait() {
        let error = error_for_status(429, Some(Duration::from_millis(1500)), "slow down".into());
        assert_eq!(
            error.to_string(),
            "the provider is rate limiting requests (retry after 1.5 s): slow down"
        );
    }
}
