//! Saving the settings screen (issue 14 #10): a save that fails changes nothing, neither
//! `config.toml` nor the stored key. Keys go to the real kernel keyring.

use preflight_engine::config::Config;
use preflight_engine::config::{KernelKeyring, KeyStore, Lookup};
use preflight_engine::lifecycle::{write_settings, ProviderChoice, SettingsUpdate};
use preflight_engine::llm::{ProviderKind, ProviderSettings};

/// Removes the account from the kernel keyring when dropped.
struct Account(String);

impl Drop for Account {
    fn drop(&mut self) {
        let _ = KernelKeyring.delete(&self.0);
    }
}

fn update(base_url: &str, key: &str) -> SettingsUpdate {
    SettingsUpdate {
        provider: ProviderChoice::Openai,
        base_url: base_url.to_owned(),
        model: "test-model".into(),
        plan_mode: true,
        auto_approve: false,
        api_key: Some(key.to_owned()),
    }
}

/// `/proc/self` reads as a folder without `config.toml` but takes no new file, even from
/// root: the config write fails after everything was checked.
#[cfg(target_os = "linux")]
#[test]
fn a_save_whose_config_write_fails_stores_no_key() {
    let unwritable = std::path::Path::new("/proc/self");
    let id = preflight_engine::store::new_id();
    let base_url = format!("http://settings-{id}.invalid/v1");
    let settings = ProviderSettings::new(ProviderKind::OpenAi, base_url.clone(), "test-model");
    let account = Account(settings.key_account().to_string());
    let stores: Vec<Box<dyn KeyStore>> = vec![Box::new(KernelKeyring)];

    let error = write_settings(unwritable, &update(&base_url, &format!("sk-{id}")), &stores)
        .expect_err("nothing can be written in /proc/self");
    assert!(error.message.contains("config.toml"), "the error names the file: {error:?}");
    let lookup = KernelKeyring.get(&account.0);
    assert!(matches!(lookup, Lookup::NoEntry), "a failed save stored the key: {lookup:?}");
}

#[test]
fn a_save_writes_config_and_key_and_a_second_save_replaces_both() {
    let home = tempfile::tempdir().unwrap();
    let id = preflight_engine::store::new_id();
    let base_url = format!("http://settings-{id}.invalid/v1");
    let stores: Vec<Box<dyn KeyStore>> = vec![Box::new(KernelKeyring)];
    write_settings(home.path(), &update(&base_url, "sk-first"), &stores).unwrap();
    let config = Config::load(home.path()).unwrap();
    let account = Account(config.provider.key_account().to_string());
    let saved = write_settings(home.path(), &update(&base_url, "sk-second"), &stores).unwrap();
    assert_eq!(saved.api_key_stored_in.as_deref(), Some("the kernel keyring"));
    let lookup = KernelKeyring.get(&account.0);
    assert!(matches!(lookup, Lookup::Found(ref key) if key.expose() == "sk-second"), "{lookup:?}");
    let leftovers: Vec<_> = std::fs::read_dir(home.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(leftovers, ["config.toml"], "no temp file is left behind");
}

#[test]
fn a_named_provider_is_added_with_its_key_changed_and_removed_keeping_the_rest() {
    use preflight_engine::lifecycle::{
        read_named_providers, remove_named_provider, save_named_provider, NamedProviderSave,
    };
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    let original = "[provider]\nkind = \"openai\"\nmodel = \"local\"\nbase_url = \"http://127.0.0.1:11434/v1\"\n";
    std::fs::write(&config, original).unwrap();
    let id = preflight_engine::store::new_id();
    let stores: Vec<Box<dyn KeyStore>> = vec![Box::new(KernelKeyring)];
    let mut save = NamedProviderSave {
        name: "cloud".into(),
        provider: ProviderChoice::Anthropic,
        base_url: format!("http://cloud-{id}.invalid"),
        model: "big".into(),
        api_key: Some(format!("sk-{id}")),
        price_input_per_mtok: Some(3.0),
        price_output_per_mtok: Some(15.0),
        vision: None,
    };
    let listed = save_named_provider(home.path(), &save, &stores).unwrap();
    let account = Account(Config::load(home.path()).unwrap().providers[0].settings.key_account());
    assert_eq!(listed.len(), 1);
    assert_eq!(
        (
            listed[0].model.as_str(),
            listed[0].price_output_per_mtok,
            listed[0].api_key_stored_in.as_deref()
        ),
        ("big", Some(15.0), Some("the kernel keyring"))
    );
    let lookup = KernelKeyring.get(&account.0);
    assert!(matches!(lookup, Lookup::Found(ref key) if key.expose() == format!("sk-{id}")));

    save.model = "bigger".into();
    save.api_key = None;
    save.vision = Some(false);
    let listed = save_named_provider(home.path(), &save, &stores).unwrap();
    assert_eq!((listed[0].model.as_str(), listed[0].vision), ("bigger", Some(false)));

    for bad in ["default", "Cloud", "", "a b"] {
        let refused = NamedProviderSave { name: bad.into(), ..save.clone() };
        assert!(save_named_provider(home.path(), &refused, &stores).is_err(), "{bad:?}");
    }
    assert_eq!(
        read_named_providers(home.path(), &stores).unwrap(),
        listed,
        "refusals changed nothing"
    );
    assert!(remove_named_provider(home.path(), "nowhere", &stores).is_err());
    assert!(remove_named_provider(home.path(), "cloud", &stores).unwrap().is_empty());
    let left = Config::load(home.path()).unwrap();
    assert_eq!((left.provider.model.as_str(), left.providers.len()), ("local", 0));
}
