//! The settings a user edits in the window (DESIGN §10): the provider of `config.toml`
//! (kind, base URL, model), the plan-mode defaults, and the provider's API key, which goes
//! to an OS key store, filed under the provider and its server's origin, never into a file.
//!
//! **Invariant:** a save that returns an error changed nothing. Everything is checked
//! first (the new file is parsed by [`Config::parse`]); then `config.toml` is replaced
//! atomically with fsync, then the key is stored, and when no store takes it the old file
//! is put back.
//!
//! **Boundary:** the thin action the adapters call. `config/` reads and writes the file;
//! this module turns the screen's shapes into a [`ConfigEdit`] and its errors into
//! [`ApiError`]s. The running engine reads `config.toml` only when it opens, so an adapter
//! re-opens it after a save.

use std::path::Path;

use preflight_llm::{ApiKey, ProviderKind};
use preflight_llm::{KernelKeyring, KeyStore, Lookup, SecretService};
use serde::{Deserialize, Serialize};

use crate::config::{Config, ConfigEdit, ConfigError, PendingConfig, PlanModeDefaults};
use crate::lifecycle::error::ApiError;

/// The provider kinds of `[provider] kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum ProviderChoice {
    Openai,
    Anthropic,
    Embedded,
}

impl ProviderChoice {
    pub(super) fn kind(self) -> ProviderKind {
        match self {
            ProviderChoice::Openai => ProviderKind::OpenAi,
            ProviderChoice::Anthropic => ProviderKind::Anthropic,
            ProviderChoice::Embedded => ProviderKind::Embedded,
        }
    }

    pub(super) fn of(kind: ProviderKind) -> ProviderChoice {
        match kind {
            ProviderKind::OpenAi => ProviderChoice::Openai,
            ProviderKind::Anthropic => ProviderChoice::Anthropic,
            ProviderKind::Embedded => ProviderChoice::Embedded,
        }
    }
}

/// What the settings screen shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct AppSettings {
    /// Whether `config.toml` exists; a window without one opens on the settings screen.
    pub configured: bool,
    pub provider: ProviderChoice,
    pub base_url: String,
    pub model: String,
    pub plan_mode: bool,
    pub auto_approve: bool,
    /// The key store holding the provider's key ("the kernel keyring"), or null.
    pub api_key_stored_in: Option<String>,
    pub config_path: String,
}

/// What the settings screen saves. An empty `base_url` means the provider's default.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct SettingsUpdate {
    pub provider: ProviderChoice,
    pub base_url: String,
    pub model: String,
    pub plan_mode: bool,
    pub auto_approve: bool,
    /// A new key for the provider; null or blank keeps the stored one.
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub api_key: Option<String>,
}

/// The key stores of DESIGN §10, in the order they are tried.
pub fn system_key_stores() -> Vec<Box<dyn KeyStore>> {
    vec![Box::new(SecretService), Box::new(KernelKeyring)]
}

/// The settings as `{home}/config.toml` and the key stores have them now.
pub fn read_settings(home: &Path, stores: &[Box<dyn KeyStore>]) -> Result<AppSettings, ApiError> {
    let path = crate::paths::config_file(home);
    let config = Config::load(home).map_err(|error| ApiError::bad_request(error.to_string()))?;
    let provider = &config.provider;
    let api_key_stored_in = match provider.kind {
        ProviderKind::Embedded => None,
        _ => {
            let account = provider.key_account();
            stores
                .iter()
                .find(|store| matches!(store.get(&account), Lookup::Found(_)))
                .map(|store| store.name().to_owned())
        }
    };
    Ok(AppSettings {
        configured: path.is_file(),
        provider: ProviderChoice::of(provider.kind),
        base_url: provider.base_url.clone(),
        model: provider.model.clone(),
        plan_mode: config.plan_mode.enabled,
        auto_approve: config.plan_mode.auto_approve,
        api_key_stored_in,
        config_path: path.to_string_lossy().into_owned(),
    })
}

/// Checks `update`, writes `config.toml`, then stores the key (in the first store that
/// takes it) for the provider's kind and origin; puts the old file back when no store
/// takes it. Returns the settings as they now are.
pub fn write_settings(
    home: &Path,
    update: &SettingsUpdate,
    stores: &[Box<dyn KeyStore>],
) -> Result<AppSettings, ApiError> {
    let pending = PendingConfig::prepare(home, &update.edit()).map_err(|e| config_error(&e))?;
    let key = update.new_key();
    pending.write().map_err(|error| config_error(&error))?;
    if let Some(key) = key.filter(|_| update.provider != ProviderChoice::Embedded) {
        let account = pending.config().provider.key_account();
        if let Err(error) = store_key(stores, &account, &key) {
            return Err(match pending.restore() {
                Ok(()) => error,
                Err(restore) => ApiError::internal(format!(
                    "{}; and the previous config.toml could not be put back: {restore}",
                    error.message
                )),
            });
        }
    }
    read_settings(home, stores)
}

impl SettingsUpdate {
    fn edit(&self) -> ConfigEdit {
        ConfigEdit {
            kind: self.provider.kind(),
            base_url: self.base_url.clone(),
            model: self.model.clone(),
            // The settings screen edits these two; the writer keeps the section's other keys.
            plan_mode: PlanModeDefaults {
                enabled: self.plan_mode,
                auto_approve: self.auto_approve,
                ..PlanModeDefaults::default()
            },
        }
    }

    /// The new key, when one was typed (blank keeps the stored one).
    pub(super) fn new_key(&self) -> Option<ApiKey> {
        let key = self.api_key.as_deref().map(str::trim).filter(|key| !key.is_empty())?;
        Some(ApiKey::new(key))
    }
}

/// A config error as the settings screen shows it. A bad value is named by its key,
/// without the file and line of a file the user did not write by hand; a file that cannot
/// be read or written is no fault of the request.
pub(super) fn config_error(error: &ConfigError) -> ApiError {
    match error {
        ConfigError::Invalid { key, problem, .. } => {
            ApiError::bad_request(format!("{key}: {problem}"))
        }
        ConfigError::Syntax { .. } => ApiError::bad_request(error.to_string()),
        ConfigError::Read { .. } | ConfigError::Write { .. } => {
            ApiError::internal(error.to_string())
        }
    }
}

pub(super) fn store_key(
    stores: &[Box<dyn KeyStore>],
    account: &str,
    key: &ApiKey,
) -> Result<&'static str, ApiError> {
    let mut failures = Vec::new();
    for store in stores {
        match store.set(account, key) {
            Ok(()) => return Ok(store.name()),
            Err(error) => failures.push(format!("{}: {error}", store.name())),
        }
    }
    Err(ApiError::internal(format!("no key store took the API key ({})", failures.join("; "))))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;
    use std::sync::Mutex;

    use super::*;
    use preflight_llm::SetupError;

    /// A key store in memory: stands in for the OS stores, which tests must not fill.
    #[derive(Default)]
    struct MemoryStore(Mutex<HashMap<String, String>>);

    impl KeyStore for MemoryStore {
        fn name(&self) -> &'static str {
            "memory"
        }
        fn get(&self, account: &str) -> Lookup {
            match self.0.lock().unwrap().get(account) {
                Some(key) => Lookup::Found(ApiKey::new(key.clone())),
                None => Lookup::NoEntry,
            }
        }
        fn set(&self, account: &str, key: &ApiKey) -> Result<(), SetupError> {
            self.0.lock().unwrap().insert(account.into(), key.expose().into());
            Ok(())
        }
        fn delete(&self, account: &str) -> Result<bool, SetupError> {
            Ok(self.0.lock().unwrap().remove(account).is_some())
        }
    }

    /// A store that refuses every key, like a machine without a keyring.
    struct BrokenStore;

    impl KeyStore for BrokenStore {
        fn name(&self) -> &'static str {
            "broken"
        }
        fn get(&self, _: &str) -> Lookup {
            Lookup::Unavailable("no keyring".into())
        }
        fn set(&self, _: &str, _: &ApiKey) -> Result<(), SetupError> {
            Err(SetupError::KeyStore { detail: "no keyring".into() })
        }
        fn delete(&self, _: &str) -> Result<bool, SetupError> {
            Ok(false)
        }
    }

    fn memory() -> Vec<Box<dyn KeyStore>> {
        vec![Box::new(BrokenStore), Box::new(MemoryStore::default())]
    }

    /// Where `openai()`'s key is filed: the kind and the origin of its base URL.
    const ACCOUNT: &str = "openai@http://127.0.0.1:11434";

    fn openai(model: &str) -> SettingsUpdate {
        SettingsUpdate {
            provider: ProviderChoice::Openai,
            base_url: "http://127.0.0.1:11434/v1".into(),
            model: model.into(),
            plan_mode: true,
            auto_approve: false,
            api_key: None,
        }
    }

    #[test]
    fn a_fresh_home_reads_as_unconfigured_defaults() {
        let home = tempfile::tempdir().unwrap();
        let settings = read_settings(home.path(), &memory()).unwrap();
        assert!(!settings.configured);
        assert_eq!(settings.provider, ProviderChoice::Embedded);
        assert!(settings.plan_mode && !settings.auto_approve);
        assert_eq!(settings.api_key_stored_in, None);
    }

    #[test]
    fn saved_settings_are_what_the_engine_reads_and_the_key_goes_to_a_store_not_the_file() {
        let home = tempfile::tempdir().unwrap();
        let stores = memory();
        let update = SettingsUpdate {
            api_key: Some("  sk-secret-1 ".into()),
            auto_approve: true,
            ..openai("qwen2.5:7b")
        };
        let saved = write_settings(home.path(), &update, &stores).unwrap();
        assert!(saved.configured);
        assert_eq!(
            saved.api_key_stored_in.as_deref(),
            Some("memory"),
            "the first store that takes it"
        );

        let config = Config::load(home.path()).unwrap();
        assert_eq!(
            (config.provider.kind, config.provider.model.as_str()),
            (ProviderKind::OpenAi, "qwen2.5:7b")
        );
        assert_eq!(config.provider.base_url, "http://127.0.0.1:11434/v1");
        assert!(config.plan_mode.enabled && config.plan_mode.auto_approve);
        let text = std::fs::read_to_string(crate::paths::config_file(home.path())).unwrap();
        assert!(!text.contains("sk-secret"), "no key in config.toml:\n{text}");
        assert!(
            matches!(stores[1].get(ACCOUNT), Lookup::Found(key) if key.expose() == "sk-secret-1")
        );
    }

    #[test]
    fn keys_and_sections_the_screen_does_not_edit_are_kept() {
        let home = tempfile::tempdir().unwrap();
        let original = "[provider]\nkind = \"anthropic\"\nmodel = \"claude\"\nmax_tokens = 4096\napi_key_env = \"MY_KEY\"\n\n[planner]\nmodel = \"big\"\n";
        std::fs::write(crate::paths::config_file(home.path()), original).unwrap();
        let update = SettingsUpdate { base_url: String::new(), ..openai("small") };
        write_settings(home.path(), &update, &memory()).unwrap();
        let config = Config::load(home.path()).unwrap();
        assert_eq!(config.provider.max_tokens, Some(4096));
        assert_eq!(config.provider.api_key_env.as_deref(), Some("MY_KEY"));
        assert_eq!(
            config.provider.base_url,
            preflight_llm::OPENAI_BASE_URL,
            "blank base URL: the kind's default"
        );
        assert_eq!(config.planner.map(|planner| planner.model).as_deref(), Some("big"));
    }

    #[test]
    fn a_refused_update_changes_nothing() {
        let home = tempfile::tempdir().unwrap();
        let stores = memory();
        write_settings(home.path(), &openai("first"), &stores).unwrap();
        let before = std::fs::read_to_string(crate::paths::config_file(home.path())).unwrap();
        let cases = [
            (SettingsUpdate { api_key: Some("sk-2".into()), ..openai("  ") }, "needs a model name"),
            (
                SettingsUpdate {
                    api_key: Some("sk-2".into()),
                    base_url: "ftp://x".into(),
                    ..openai("m")
                },
                "provider.base_url",
            ),
        ];
        for (update, expected) in cases {
            let error = write_settings(home.path(), &update, &stores).unwrap_err();
            assert!(error.message.contains(expected), "{error:?}");
            assert_eq!(error.code, crate::lifecycle::ErrorCode::BadRequest);
        }
        assert_eq!(
            std::fs::read_to_string(crate::paths::config_file(home.path())).unwrap(),
            before
        );
        assert!(
            matches!(stores[1].get(ACCOUNT), Lookup::NoEntry),
            "no key stored by a refused update"
        );

        let nowhere: Vec<Box<dyn KeyStore>> = vec![Box::new(BrokenStore)];
        let update = SettingsUpdate { api_key: Some("sk-3".into()), ..openai("other") };
        let error = write_settings(home.path(), &update, &nowhere).unwrap_err();
        assert!(error.message.contains("no key store took the API key"), "{error:?}");
        assert_eq!(
            std::fs::read_to_string(crate::paths::config_file(home.path())).unwrap(),
            before,
            "the old file is put back"
        );

        let fresh = tempfile::tempdir().unwrap();
        write_settings(fresh.path(), &update, &nowhere).unwrap_err();
        assert!(!crate::paths::config_file(fresh.path()).exists(), "no file where there was none");
    }

    #[test]
    fn the_embedded_model_needs_no_model_name_and_a_blank_key_keeps_the_stored_one() {
        let home = tempfile::tempdir().unwrap();
        let stores = memory();
        write_settings(
            home.path(),
            &SettingsUpdate { api_key: Some("sk-1".into()), ..openai("m") },
            &stores,
        )
        .unwrap();
        let kept = write_settings(
            home.path(),
            &SettingsUpdate { api_key: Some(" ".into()), ..openai("m") },
            &stores,
        )
        .unwrap();
        assert_eq!(kept.api_key_stored_in.as_deref(), Some("memory"));
        let update = SettingsUpdate {
            provider: ProviderChoice::Embedded,
            base_url: String::new(),
            model: String::new(),
            ..openai("")
        };
        let embedded = write_settings(home.path(), &update, &stores).unwrap();
        assert_eq!(
            (embedded.provider, embedded.api_key_stored_in),
            (ProviderChoice::Embedded, None)
        );
    }
}
