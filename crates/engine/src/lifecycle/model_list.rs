//! `GET /v1/models` (DESIGN §15): what a chat may choose — each configured provider's own
//! list where its API has one (asked at once, short timeouts, no retries), plus the models
//! `config.toml` names — with what is known of each (its window, whether it sees images,
//! whether it calls tools), and each provider's state, so a picker can say why one is missing.

use futures_util::future::join_all;
use preflight_llm::{known_window, list_models, ApiKey, ProviderKind, ProviderSettings};
use preflight_protocol::error_code::ErrorCode;
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::providers::{Entry, Providers};

/// One model a chat may choose.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelOption {
    /// The provider's name in `config.toml` (`default` for `[provider]`).
    pub provider: String,
    pub model: String,
    /// Tokens, when the settings give it or the model is a known one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub context_window: Option<u32>,
    /// Whether it takes images (the embedded model does not; `vision = false` says so).
    pub vision: bool,
    /// Whether it calls tools (the embedded model cannot).
    pub tools: bool,
    /// Whether `config.toml` names it (the provider's `model` or `models`); else its server
    /// listed it.
    pub configured: bool,
}

/// A configured provider and whether its server answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProviderState {
    pub name: String,
    /// `openai`, `anthropic` or `embedded`.
    pub kind: String,
    pub base_url: String,
    /// Its default model.
    pub model: String,
    /// Why its models could not be listed; absent when they were (or it has no server).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub error: Option<ApiError>,
}

/// `GET /v1/models`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ModelList {
    /// Provider by provider in `config.toml`'s order (`default` first), configured models
    /// first, then the served ones sorted.
    pub data: Vec<ModelOption>,
    pub providers: Vec<ProviderState>,
}

impl Engine {
    /// Every model a chat may choose, each provider asked for its list at once.
    pub async fn list_models(&self) -> ModelList {
        let providers = &self.inner.providers;
        let asked = providers.entries().iter().map(|entry| self.served_by(entry));
        let answers = join_all(asked).await;
        let mut list = ModelList { data: Vec::new(), providers: Vec::new() };
        for (entry, served) in providers.entries().iter().zip(answers) {
            let (served, error) = match served {
                Ok(served) => (served, None),
                Err(error) => (Vec::new(), Some(error)),
            };
            if error.is_none() {
                providers.note_served(&entry.name, &served);
            }
            list.data.extend(options_of(entry, &served));
            list.providers.push(ProviderState {
                name: entry.name.clone(),
                kind: entry.settings.kind.as_str().to_owned(),
                base_url: entry.settings.base_url.clone(),
                model: entry.settings.model.clone(),
                error,
            });
        }
        list
    }

    /// The models `entry`'s server serves; none for the embedded model, which has no server.
    async fn served_by(&self, entry: &Entry) -> Result<Vec<String>, ApiError> {
        if entry.settings.kind == ProviderKind::Embedded {
            return Ok(Vec::new());
        }
        let key = self.find_key(&entry.settings).await?;
        let cancel = CancellationToken::new();
        list_models(&entry.settings, key.as_ref(), &cancel).await.map_err(|error| match error {
            preflight_llm::ListError::Setup(error) => {
                ApiError::new(ErrorCode::ProviderSetup, error.to_string())
            }
            preflight_llm::ListError::Call(error) => ApiError::new(error.code(), error.to_string()),
        })
    }

    /// The key a chat would send to the provider of `settings`, looked up on a blocking
    /// thread (the key store may wait on D-Bus).
    pub(crate) async fn find_key(
        &self,
        settings: &ProviderSettings,
    ) -> Result<Option<ApiKey>, ApiError> {
        let (inner, wanted) = (self.inner.clone(), settings.clone());
        tokio::task::spawn_blocking(move || inner.providers.keys().find(&wanted))
            .await
            .map_err(|error| ApiError::internal(format!("the key lookup failed: {error}")))?
            .map_err(|error| ApiError::new(ErrorCode::ProviderUnauthorized, error.to_string()))
    }
}

/// The options of one provider: the configured models, then the served ones not among them.
fn options_of(entry: &Entry, served: &[String]) -> Vec<ModelOption> {
    let configured = Providers::configured_models(entry);
    let mut served: Vec<&String> = served.iter().filter(|m| !configured.contains(m)).collect();
    served.sort();
    let settings = &entry.settings;
    let embedded = settings.kind == ProviderKind::Embedded;
    let option = |model: &str, configured: bool| ModelOption {
        provider: entry.name.clone(),
        model: model.to_owned(),
        context_window: match model == settings.model {
            true => settings.context_window.or_else(|| known_window(model)),
            false => known_window(model),
        },
        vision: settings.sees_images(),
        tools: !embedded,
        configured,
    };
    let mut options: Vec<ModelOption> = configured.iter().map(|m| option(m, true)).collect();
    options.extend(served.into_iter().map(|m| option(m, false)));
    options
}
