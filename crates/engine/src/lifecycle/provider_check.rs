//! Settings' "Test connection" (issue 48): the provider the form describes — not yet saved —
//! reached as a chat would reach it, with the key typed in the form or else the one stored
//! for that provider, and asked which models it serves. Known in seconds: short timeouts, no
//! retries. Nothing is written.

use preflight_llm::{list_models, KeyLookup, ListError, ProviderKind, ProviderSettings};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::settings::SettingsUpdate;

/// What the provider answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ProviderCheck {
    /// The models it serves, sorted (none for the embedded model, which has no server).
    pub models: Vec<String>,
    /// Whether the form's model is one of them.
    pub model_served: bool,
}

/// Lists the models of the provider `update` describes. `keys` finds a stored key when the
/// form has none; the key store may block, so it is asked on a blocking thread.
pub async fn check_provider(
    update: SettingsUpdate,
    keys: KeyLookup,
) -> Result<ProviderCheck, ApiError> {
    let kind = update.provider.kind();
    let base_url = match update.base_url.trim() {
        "" => kind.default_base_url().to_owned(),
        url => url.to_owned(),
    };
    let settings = ProviderSettings::new(kind, base_url, update.model.trim());
    let key = match update.new_key() {
        Some(key) => Some(key),
        None if kind == ProviderKind::Embedded => None,
        None => {
            let looked_up = settings.clone();
            tokio::task::spawn_blocking(move || keys.find(&looked_up))
                .await
                .map_err(|error| ApiError::internal(format!("the key lookup failed: {error}")))?
                .map_err(|error| {
                    ApiError::new(ErrorCode::ProviderUnauthorized, error.to_string())
                })?
        }
    };
    let models =
        list_models(&settings, key.as_ref(), &CancellationToken::new()).await.map_err(|error| {
            match error {
                ListError::Setup(error) => ApiError::bad_request(error.to_string()),
                ListError::Call(error) => ApiError::new(error.code(), error.to_string()),
            }
        })?;
    let model_served = models.contains(&settings.model);
    Ok(ProviderCheck { models, model_served })
}
