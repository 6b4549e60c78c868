//! Where Preflight keeps its data, resolved once here in the binary (the engine takes paths
//! as values and never reads the environment).

use std::path::{Path, PathBuf};

use anyhow::{bail, Context};
use preflight_engine::bundled;
use preflight_engine::lifecycle::EngineOptions;

/// `$PREFLIGHT_HOME`, else `$XDG_DATA_HOME/preflight`, else `~/.local/share/preflight`;
/// created (0700) when absent.
pub fn data_home() -> anyhow::Result<PathBuf> {
    let home = match std::env::var_os("PREFLIGHT_HOME").filter(|value| !value.is_empty()) {
        Some(home) => PathBuf::from(home),
        None => platform_data_dir()?.join("preflight"),
    };
    create_private_dir(&home)?;
    Ok(std::path::absolute(&home).unwrap_or(home))
}

fn platform_data_dir() -> anyhow::Result<PathBuf> {
    if let Some(data) = std::env::var_os("XDG_DATA_HOME").filter(|value| !value.is_empty()) {
        return Ok(PathBuf::from(data));
    }
    match std::env::var_os("HOME").filter(|value| !value.is_empty()) {
        Some(home) => Ok(PathBuf::from(home).join(".local/share")),
        None => bail!("neither PREFLIGHT_HOME nor HOME is set: cannot tell where to keep data"),
    }
}

fn create_private_dir(path: &Path) -> anyhow::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if path.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .with_context(|| format!("creating the data folder {}", path.display()))
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
