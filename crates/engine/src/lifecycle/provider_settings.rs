//! Settings' list of providers (DESIGN §15): the `[providers.NAME]` sections a chat may
//! choose a model of, each added, changed or removed from the window, with its key in the OS
//! key store under its own kind and origin, as the default provider's is (`settings.rs`).
//!
//! **Invariant:** a save or removal that returns an error changed nothing: the new file is
//! parsed first, written atomically, and put back when no key store takes the key.

use std::path::Path;

use preflight_llm::{KeyStore, Lookup, ProviderKind, ProviderSettings};
use serde::{Deserialize, Serialize};

use crate::config::{
    Config, NamedProvider, PendingConfig, ProviderSection, ProviderSectionEdit, DEFAULT_PROVIDER,
};
use crate::lifecycle::error::ApiError;
use crate::lifecycle::settings::{config_error, store_key, ProviderChoice};

/// One provider of the list, as `config.toml` and the key stores have it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct NamedProviderView {
    pub name: String,
    pub provider: ProviderChoice,
    pub base_url: String,
    pub model: String,
    pub price_input_per_mtok: Option<f64>,
    pub price_output_per_mtok: Option<f64>,
    /// Whether its models take images; null when the section does not say (they do).
    pub vision: Option<bool>,
    /// The key store holding its key, or null.
    pub api_key_stored_in: Option<String>,
}

/// What the list saves of one provider. An empty `base_url` is the kind's default.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct NamedProviderSave {
    /// 1 to 40 of a-z, 0-9, `-` and `_`; not `default`. Saving a name that exists changes it.
    pub name: String,
    pub provider: ProviderChoice,
    pub base_url: String,
    pub model: String,
    /// A new key; null or blank keeps the stored one.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub api_key: Option<String>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub price_input_per_mtok: Option<f64>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub price_output_per_mtok: Option<f64>,
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub vision: Option<bool>,
}

/// The providers `{home}/config.toml` names beside `[provider]`.
pub fn read_named_providers(
    home: &Path,
    stores: &[Box<dyn KeyStore>],
) -> Result<Vec<NamedProviderView>, ApiError> {
    let config = Config::load(home).map_err(|error| ApiError::bad_request(error.to_string()))?;
    Ok(config.providers.iter().map(|named| view_of(named, stores)).collect())
}

/// Adds or changes `save.name`'s section, then stores its key when one was typed.
pub fn save_named_provider(
    home: &Path,
    save: &NamedProviderSave,
    stores: &[Box<dyn KeyStore>],
) -> Result<Vec<NamedProviderView>, ApiError> {
    let name = save.name.trim();
    if !crate::config::is_provider_name(name) || name == DEFAULT_PROVIDER {
        return Err(ApiError::bad_request(format!(
            "{name:?} cannot name a provider: use 1 to 40 of a-z, 0-9, - and _, and not \
             \"{DEFAULT_PROVIDER}\""
        )));
    }
    if save.provider == ProviderChoice::Embedded {
        return Err(ApiError::bad_request(
            "the embedded model is the default provider's; another provider has a server",
        ));
    }
    let section = ProviderSection {
        kind: save.provider.kind(),
        base_url: save.base_url.clone(),
        model: save.model.clone(),
        price_input_per_mtok: save.price_input_per_mtok,
        price_output_per_mtok: save.price_output_per_mtok,
        vision: save.vision,
    };
    let edit = ProviderSectionEdit { name: name.to_owned(), section: Some(section) };
    let pending = PendingConfig::prepare_with(home, |table| edit.apply(table))
        .map_err(|error| config_error(&error))?;
    pending.write().map_err(|error| config_error(&error))?;
    let key = save.api_key.as_deref().map(str::trim).filter(|key| !key.is_empty());
    if let Some(key) = key {
        let saved = pending.config().providers.iter().find(|named| named.name == name);
        let account = saved.map(|named| named.settings.key_account()).unwrap_or_default();
        if let Err(error) = store_key(stores, &account, &preflight_llm::ApiKey::new(key)) {
            return Err(match pending.restore() {
                Ok(()) => error,
                Err(restore) => ApiError::internal(format!(
                    "{}; and the previous config.toml could not be put back: {restore}",
                    error.message
                )),
            });
        }
    }
    read_named_providers(home, stores)
}

/// Removes `name`'s section. Its key stays in the key store: another provider at the same
/// server may use it. Chats that chose one of its models say so when they next send.
pub fn remove_named_provider(
    home: &Path,
    name: &str,
    stores: &[Box<dyn KeyStore>],
) -> Result<Vec<NamedProviderView>, ApiError> {
    let config = Config::load(home).map_err(|error| ApiError::bad_request(error.to_string()))?;
    if !config.providers.iter().any(|named| named.name == name) {
        return Err(ApiError::bad_request(format!("config.toml has no provider {name:?}")));
    }
    let edit = ProviderSectionEdit { name: name.to_owned(), section: None };
    let pending = PendingConfig::prepare_with(home, |table| edit.apply(table))
        .map_err(|error| config_error(&error))?;
    pending.write().map_err(|error| config_error(&error))?;
    read_named_providers(home, stores)
}

fn view_of(named: &NamedProvider, stores: &[Box<dyn KeyStore>]) -> NamedProviderView {
    let settings: &ProviderSettings = &named.settings;
    NamedProviderView {
        name: named.name.clone(),
        provider: ProviderChoice::of(settings.kind),
        base_url: settings.base_url.clone(),
        model: settings.model.clone(),
        price_input_per_mtok: named.extras.prices.input_per_mtok,
        price_output_per_mtok: named.extras.prices.output_per_mtok,
        vision: settings.vision,
        api_key_stored_in: key_store_of(settings, stores),
    }
}

fn key_store_of(settings: &ProviderSettings, stores: &[Box<dyn KeyStore>]) -> Option<String> {
    if settings.kind == ProviderKind::Embedded {
        return None;
    }
    let account = settings.key_account();
    let found = stores.iter().find(|store| matches!(store.get(&account), Lookup::Found(_)));
    found.map(|store| store.name().to_owned())
}
