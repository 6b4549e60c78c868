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
