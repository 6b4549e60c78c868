//! Where Preflight keeps its data, resolved once here in the binary (the engine takes paths
//! as values and never reads the environment).

use std::path::{Path, PathBuf};

use preflight_engine::bundled;
use preflight_engine::lifecycle::EngineOptions;

/// The data folder (`preflight_engine::paths::data_home`), from this process's environment.
pub fn data_home() -> anyhow::Result<PathBuf> {
    Ok(preflight_engine::paths::data_home(|name| std::env::var_os(name))?)
}

/// The engine's options for `home`, with the embedded model (llama.cpp) from the models
/// folder for `kind = "embedded"`, the default.
pub fn engine_options(home: &Path) -> anyhow::Result<EngineOptions> {
    let mut options = EngineOptions::new(home.to_owned(), bundled::fs_server_of_this_process());
    options.mcp.sandbox = Some(bundled::sandbox_of_this_process());
    let models = preflight_embedded::LlamaModels::new(crate::models::models_dir()?);
    options.local_models = Some(std::sync::Arc::new(models));
    Ok(options)
}
