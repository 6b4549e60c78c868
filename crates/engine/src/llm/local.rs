//! The seam for models that run inside this process (`kind = "embedded"`, the default when
//! there is no `config.toml`). The engine says what it needs; the host process passes an
//! implementation in through `EngineOptions::local_models` (the `preflight` binary passes
//! the llama.cpp one of `crates/embedded`), so the engine itself never links llama.cpp.

use std::sync::Arc;

use super::{Provider, ProviderSettings, SetupError};

/// Opens in-process models.
pub trait LocalModels: Send + Sync {
    /// The provider for `settings` (kind `embedded`; `model` names the model, empty for the
    /// default): the model loaded and ready, or why it cannot be (not installed, unreadable,
    /// unsupported CPU), said so that the user knows what to do.
    fn open(&self, settings: &ProviderSettings) -> Result<Arc<dyn Provider>, SetupError>;
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;
    use crate::config::{connect_provider, KeyLookup};
    use crate::llm::{LlmError, ModelRequest, ProviderKind, ResponseStream};

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
