//! Where API keys live (DESIGN §10): the environment variable the config names, when it is
//! set; else the Secret Service when a session bus has one, else the kernel keyring
//! (keyutils). A stored key is filed under the provider kind and the origin of the base URL
//! it was saved for, and is found only for that origin: a `[planner]` or an edited
//! `base_url` pointing elsewhere never gets it.
//!
//! Both key stores are real ones, chosen explicitly: the `keyring` crate is built with
//! `linux-native` (keyutils) and `async-secret-service` (zbus, pure Rust) and its credentials
//! are constructed by type, so its in-memory mock is never used. Keys travel as [`ApiKey`],
//! whose `Debug` is redacted; they are never stored in SQLite, the config or a log.
//!
//! Kernel-keyring keys are linked into the user's persistent keyring: they outlive the
//! process and the login session, expire after days unused (the kernel's
//! `persistent_keyring_expiry`) and are gone at reboot. Lookups are blocking (D-Bus).

use std::sync::Once;

use keyring::Entry;

use crate::{ApiKey, ProviderSettings, SetupError};

/// The key store "service" every Preflight key is filed under; the account is the
/// provider kind and the base URL's origin (`openai@https://api.openai.com`, see
/// [`ProviderSettings::key_account`]).
pub const KEYRING_SERVICE: &str = "preflight";

/// What a key store can say about one account.
#[derive(Debug)]
pub enum Lookup {
    Found(ApiKey),
    NoEntry,
    /// The store cannot be used on this machine (no session bus, no keyring): skipped.
    Unavailable(String),
}

/// A place keys are kept.
pub trait KeyStore: Send + Sync {
    /// How the user would call it, for messages.
    fn name(&self) -> &'static str;
    fn get(&self, account: &str) -> Lookup;
    fn set(&self, account: &str, key: &ApiKey) -> Result<(), SetupError>;
    /// Removes the account's key; false if there was none.
    fn delete(&self, account: &str) -> Result<bool, SetupError>;
}

/// The freedesktop Secret Service (GNOME Keyring, KWallet) over D-Bus.
pub struct SecretService;

/// The Linux kernel keyring (keyutils): always there, even headless.
pub struct KernelKeyring;

fn secret_service_entry(account: &str) -> keyring::Result<Entry> {
    let credential =
        keyring::secret_service::SsCredential::new_with_target(None, KEYRING_SERVICE, account)?;
    Ok(Entry::new_with_credential(Box::new(credential)))
}

/// A thread without a session keyring gets one from the kernel when the first keyutils
/// credential is built (it links the persistent keyring into "the session keyring"); that
/// first credential still points at the user-session keyring it saw before, so its key can
/// be added but not linked, and `set` fails with `NoEntry`. Building one credential first
/// settles the session keyring for every later one. Keyrings belong to a thread's
/// credentials, not to the process, so this is done once per thread (key lookups run on
/// whichever blocking thread is free).
fn kernel_entry(account: &str) -> keyring::Result<Entry> {
    thread_local! {
        static SETTLE_SESSION_KEYRING: Once = const { Once::new() };
    }
    SETTLE_SESSION_KEYRING.with(|settle| {
        settle.call_once(|| {
            let _ = keyring::keyutils::KeyutilsCredential::new_with_target(
                None,
                KEYRING_SERVICE,
                "settle",
            );
        })
    });
    let credential =
        keyring::keyutils::KeyutilsCredential::new_with_target(None, KEYRING_SERVICE, account)?;
    Ok(Entry::new_with_credential(Box::new(credential)))
}

impl KeyStore for SecretService {
    fn name(&self) -> &'static str {
        "the Secret Service"
    }

    fn get(&self, account: &str) -> Lookup {
        get_from(secret_service_entry(account))
    }

    fn set(&self, account: &str, key: &ApiKey) -> Result<(), SetupError> {
        secret_service_entry(account)
            .and_then(|entry| entry.set_password(key.expose()))
            .map_err(store_error)
    }

    fn delete(&self, account: &str) -> Result<bool, SetupError> {
        delete_from(secret_service_entry(account))
    }
}

impl KeyStore for KernelKeyring {
    fn name(&self) -> &'static str {
        "the kernel keyring"
    }

    fn get(&self, account: &str) -> Lookup {
        get_from(kernel_entry(account))
    }

    fn set(&self, account: &str, key: &ApiKey) -> Result<(), SetupError> {
        kernel_entry(account)
            .and_then(|entry| entry.set_password(key.expose()))
            .map_err(store_error)
    }

    fn delete(&self, account: &str) -> Result<bool, SetupError> {
        delete_from(kernel_entry(account))
    }
}

fn get_from(entry: keyring::Result<Entry>) -> Lookup {
    match entry.and_then(|entry| entry.get_password()) {
        Ok(key) if key.trim().is_empty() => Lookup::NoEntry,
        Ok(key) => Lookup::Found(ApiKey::new(key.trim())),
        Err(keyring::Error::NoEntry) => Lookup::NoEntry,
        Err(error) => Lookup::Unavailable(error.to_string()),
    }
}

fn delete_from(entry: keyring::Result<Entry>) -> Result<bool, SetupError> {
    match entry.and_then(|entry| entry.delete_credential()) {
        Ok(()) => Ok(true),
        Err(keyring::Error::NoEntry) => Ok(false),
        Err(error) => Err(store_error(error)),
    }
}

fn store_error(error: keyring::Error) -> SetupError {
    SetupError::KeyStore { detail: error.to_string() }
}

type Environment = Box<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Finds a provider's key: the environment variable `api_key_env` names, then each store in
/// turn. The caller passes the environment in (the binary reads its own; tests pass a map).
pub struct KeyLookup {
    stores: Vec<Box<dyn KeyStore>>,
    environment: Environment,
}

impl KeyLookup {
    /// The order of DESIGN §10: `environment` (when `api_key_env` is set), Secret Service,
    /// kernel keyring.
    pub fn system(
        environment: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> KeyLookup {
        KeyLookup::new(vec![Box::new(SecretService), Box::new(KernelKeyring)], environment)
    }

    pub fn new(
        stores: Vec<Box<dyn KeyStore>>,
        environment: impl Fn(&str) -> Option<String> + Send + Sync + 'static,
    ) -> KeyLookup {
        KeyLookup { stores, environment: Box::new(environment) }
    }

    /// The names of the stores, in the order they are asked.
    pub fn store_names(&self) -> Vec<&'static str> {
        self.stores.iter().map(|store| store.name()).collect()
    }

    /// The key for `settings`; `None` where the provider needs none (a local server). A
    /// provider that needs one and has none anywhere is `MissingKey`, saying where it looked.
    /// A set `api_key_env` wins: the user named that key for this configuration.
    pub fn find(&self, settings: &ProviderSettings) -> Result<Option<ApiKey>, SetupError> {
        let mut looked_in = Vec::new();
        if let Some(variable) = &settings.api_key_env {
            match (self.environment)(variable).filter(|value| !value.trim().is_empty()) {
                Some(value) => return Ok(Some(ApiKey::new(value.trim()))),
                None => looked_in.push(format!("the environment variable {variable} (not set)")),
            }
        }
        if let Some(key) = self.stored(&settings.key_account(), &mut looked_in) {
            return Ok(Some(key));
        }
        if !settings.needs_api_key() {
            return Ok(None);
        }
        if settings.api_key_env.is_none() {
            looked_in.push("no api_key_env is configured".into());
        }
        Err(SetupError::MissingKey {
            provider: settings.kind.as_str(),
            looked_in: looked_in.join("; "),
        })
    }

    /// The key filed under `account` in the first store that has one; the others are
    /// noted in `looked_in`.
    fn stored(&self, account: &str, looked_in: &mut Vec<String>) -> Option<ApiKey> {
        for store in &self.stores {
            match store.get(account) {
                Lookup::Found(key) => return Some(key),
                Lookup::NoEntry => looked_in.push(format!(
                    "{} (no \"{KEYRING_SERVICE}\"/\"{account}\" entry)",
                    store.name()
                )),
                Lookup::Unavailable(why) => {
                    looked_in.push(format!("{} (not available: {why})", store.name()))
                }
            }
        }
        None
    }
}
