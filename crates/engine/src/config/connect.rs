//! The provider a config names: an API one with its key (found by `keys.rs`), or the embedded
//! one opened by the host's [`LocalModels`].

use std::sync::Arc;

use preflight_llm::KeyLookup;
use preflight_llm::{
    build_provider, LocalModels, Provider, ProviderKind, ProviderSettings, SetupError,
};

/// The provider `settings` describe, with its key found by `keys`. The embedded kind is
/// opened by `local` (no key is looked for), and refused when there is none. The key lookup
/// may block on D-Bus and loading a local model takes a moment: from async code, call it
/// where blocking is fine (e.g. `spawn_blocking`) or once at start-up.
pub fn connect_provider(
    settings: &ProviderSettings,
    keys: &KeyLookup,
    local: Option<&dyn LocalModels>,
) -> Result<Arc<dyn Provider>, SetupError> {
    if settings.kind == ProviderKind::Embedded {
        return local.map_or(Err(SetupError::EmbeddedNotAvailable), |local| local.open(settings));
    }
    let key = keys.find(settings)?;
    build_provider(settings, key)
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use preflight_llm::{LlmError, ModelRequest, ResponseStream};

    /// Opens a provider named after the settings' model, and remembers what it was asked.
    #[derive(Default)]
    struct FakeModels(Mutex<Vec<String>>);

    struct Named(String);

    #[async_trait::async_trait]
    impl Provider for Named {
        fn model(&self) -> &str {
            &self.0
        }
        async fn stream(
            &self,
            _: &ModelRequest,
            _: &tokio_util::sync::CancellationToken,
        ) -> Result<ResponseStream, LlmError> {
            Err(LlmError::Cancelled)
        }
    }

    impl LocalModels for FakeModels {
        fn open(&self, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, SetupError> {
            self.0.lock().unwrap().push(settings.model.clone());
            match settings.model.as_str() {
                "missing" => Err(SetupError::EmbeddedModel { detail: "not installed".into() }),
                name => Ok(Arc::new(Named(format!("local {name}")))),
            }
        }
    }

    #[test]
    fn the_embedded_kind_goes_to_the_local_models_without_a_key_lookup() {
        let keys = KeyLookup::new(Vec::new(), |_: &str| -> Option<String> {
            panic!("no key lookup for embedded")
        });
        let local = FakeModels::default();
        let settings = ProviderSettings { model: "smollm2".into(), ..ProviderSettings::embedded() };
        let provider = connect_provider(&settings, &keys, Some(&local)).unwrap();
        assert_eq!(provider.model(), "local smollm2");
        let missing = ProviderSettings { model: "missing".into(), ..ProviderSettings::embedded() };
        let error = connect_provider(&missing, &keys, Some(&local)).err().unwrap();
        assert_eq!(error.to_string(), "the embedded model cannot start: not installed");
        assert_eq!(
            connect_provider(&settings, &keys, None).err(),
            Some(SetupError::EmbeddedNotAvailable)
        );
        assert_eq!(*local.0.lock().unwrap(), ["smollm2", "missing"]);

        let remote = ProviderSettings::new(ProviderKind::OpenAi, "http://127.0.0.1:9/v1", "m");
        let keys = KeyLookup::new(Vec::new(), |_| None);
        assert_eq!(connect_provider(&remote, &keys, Some(&local)).unwrap().model(), "m");
        assert_eq!(local.0.lock().unwrap().len(), 2, "other kinds never reach the local models");
    }
}
