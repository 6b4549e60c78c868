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
//!
//! **What it may use:** the protocol crate (messages, tool specs, error codes), HTTP and the
//! OS key store (`keys.rs`: where a provider's key, or a remote MCP server's token, is
//! found). It stands beside the store and names it not; the MCP host and the agent stand
//! above.

mod anthropic;
mod api_key;
mod assemble;
mod budget;
mod compat;
mod constrained;
mod error;
mod http;
mod keys;
mod local;
mod models;
mod openai;
mod provider;
mod record;
#[cfg(test)]
mod replay;
mod retry;
mod settings;
mod sse;
mod types;

use std::sync::Arc;

pub use anthropic::AnthropicProvider;
pub use api_key::ApiKey;
pub use assemble::{ToolCallAssembler, ToolCallDelta};
pub use budget::{known_window, Budget, DEFAULT_CONTEXT_WINDOW};
pub use compat::ServerCompat;
pub use constrained::Constrained;
pub use error::{LlmError, SetupError};
pub use keys::{KernelKeyring, KeyLookup, KeyStore, Lookup, SecretService, KEYRING_SERVICE};
pub use local::LocalModels;
pub use models::{list_models, ListError};
pub use openai::OpenAiProvider;
pub use provider::{Provider, ResponseStream};
pub use record::RECORD_TOOL;
pub use retry::RetryPolicy;
pub use settings::{
    origin_of, ProviderKind, ProviderSettings, ANTHROPIC_BASE_URL, OPENAI_BASE_URL,
};
pub use types::{
    FinishReason, ModelMessage, ModelRequest, ModelResponse, OutputConstraint, StreamEvent,
    Timeouts, Usage, SUMMARY_HEADER,
};

/// The provider `settings` describe, with its key (looked up by `keys.rs`).
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
