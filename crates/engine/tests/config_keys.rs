//! API keys: the environment variable fallback, a clear error when a needed key is
//! nowhere, the kernel keyring as a real store (never the crate's mock), no key in output.

use std::collections::HashMap;

use preflight_engine::config::{connect_provider, Config, KeyLookup};
use preflight_engine::config::{KernelKeyring, KeyStore, Lookup};
use preflight_engine::llm::{ApiKey, ProviderKind, ProviderSettings, SetupError, OPENAI_BASE_URL};

fn environment(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + Send + Sync + 'static {
    let map: HashMap<String, String> =
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    move |name| map.get(name).cloned()
}

fn anthropic() -> ProviderSettings {
    let mut settings =
        ProviderSettings::new(ProviderKind::Anthropic, "https://api.anthropic.com", "claude");
    settings.api_key_env = Some("ANTHROPIC_API_KEY".into());
    settings
}

#[test]
fn the_environment_variable_is_the_last_resort() {
    let keys = KeyLookup::new(vec![], environment(&[("ANTHROPIC_API_KEY", " sk-ant-1 \n")]));
    assert_eq!(keys.find(&anthropic()).unwrap(), Some(ApiKey::new("sk-ant-1")));
}

#[test]
fn a_needed_key_that_is_nowhere_is_a_clear_error() {
    let keys = KeyLookup::new(vec![], environment(&[]));
    let error = keys.find(&anthropic()).unwrap_err();
    assert!(matches!(error, SetupError::MissingKey { provider: "anthropic", .. }), "{error:?}");
    assert!(error.to_string().contains("ANTHROPIC_API_KEY (not set)"), "{error}");

    let mut openai = ProviderSettings::new(ProviderKind::OpenAi, OPENAI_BASE_URL, "gpt-4o");
    assert!(keys.find(&openai).is_err(), "OpenAI itself needs a key");
    openai.base_url = "http://127.0.0.1:11434/v1".into();
    assert_eq!(keys.find(&openai).unwrap(), None, "a local server needs none");
    openai.api_key_env = Some("LOCAL_KEY".into());
    assert!(keys.find(&openai).is_err(), "a configured key variable means a key is expected");
}

#[test]
fn the_system_lookup_asks_the_secret_service_then_the_kernel_keyring() {
    let keys = KeyLookup::system(environment(&[]));
    assert_eq!(keys.store_names(), ["the Secret Service", "the kernel keyring"]);
}

/// The kernel keyring is a real store: what is set is there for a new lookup, and gone
/// after delete. (The `keyring` crate's mock would not be shared between entries.)
#[test]
fn the_kernel_keyring_keeps_keys_between_lookups() {
    let store = KernelKeyring;
    let account = format!("test-{}", preflight_engine::store::new_id());
    store.set(&account, &ApiKey::new("sk-kernel-7")).unwrap();
    let found = store.get(&account);
    let deleted = store.delete(&account).unwrap();
    assert!(matches!(found, Lookup::Found(ref key) if key.expose() == "sk-kernel-7"), "{found:?}");
    assert!(deleted);
    assert!(matches!(store.get(&account), Lookup::NoEntry));
    assert!(!store.delete(&account).unwrap());
}

#[test]
fn found_keys_show_nowhere_in_debug_or_errors() {
    let keys = KeyLookup::new(vec![], environment(&[("ANTHROPIC_API_KEY", "sk-ant-secret")]));
    let provider = connect_provider(&anthropic(), &keys, None).unwrap();
    assert_eq!(provider.model(), "claude");
    let key = keys.find(&anthropic()).unwrap();
    assert!(!format!("{key:?}").contains("secret"));
}

#[test]
fn the_embedded_default_is_refused_before_any_key_is_looked_for() {
    let keys = KeyLookup::new(vec![], |_: &str| -> Option<String> {
        panic!("no key lookup for embedded")
    });
    let error = connect_provider(&Config::default().provider, &keys, None).err().unwrap();
    assert_eq!(error, SetupError::EmbeddedNotAvailable);
}
