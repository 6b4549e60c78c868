//! Where the desktop app keeps its data, resolved once at start (the engine takes paths as
//! values). The engine's rules (`preflight_engine::paths::data_home`), as for the `preflight`
//! binary: `$PREFLIGHT_HOME`, else `$XDG_DATA_HOME/preflight`, else
//! `~/.local/share/preflight`. The filesystem server and the code sandbox are found by
//! `preflight_engine::bundled`, as for `preflight`. The models folder is the one
//! `preflight model fetch` fills.

use std::path::{Path, PathBuf};

/// The data folder (`preflight_engine::paths::data_home`), from this process's environment.
pub fn data_home() -> Result<PathBuf, String> {
    preflight_engine::paths::data_home(|name| std::env::var_os(name)).map_err(|e| e.to_string())
}

/// The cache folder the models folder is in (`preflight_embedded::catalog::cache_dir`).
/// Relative values of `XDG_CACHE_HOME` and `HOME` are ignored, as the XDG spec asks: the
/// folder may end up on a library path.
pub fn cache_dir() -> Option<PathBuf> {
    preflight_embedded::catalog::cache_dir(|name| {
        std::env::var_os(name).filter(|value| Path::new(value).is_absolute())
    })
}

/// The embedded models' folder (shared with the `preflight` binary): `$PREFLIGHT_MODELS_DIR`,
/// else the platform cache folder.
pub fn models_dir() -> Result<PathBuf, String> {
    preflight_embedded::catalog::models_dir(|name| std::env::var_os(name)).ok_or_else(|| {
        "neither PREFLIGHT_MODELS_DIR nor HOME is set: cannot tell where the models are".to_owned()
    })
}

#[cfg(test)]
mod tests {
    /// The `.deb` holds its resources in `/usr/lib/<productName>` (Tauri's bundler) and the
    /// engine finds the filesystem server there (`bundled::INSTALLED_RESOURCES`).
    #[test]
    fn the_engine_looks_for_resources_where_the_bundler_puts_them() {
        let config: serde_json::Value =
            serde_json::from_str(include_str!("../../tauri.conf.json")).unwrap();
        let product = config["productName"].as_str().unwrap();
        assert_eq!(preflight_engine::bundled::INSTALLED_RESOURCES, format!("lib/{product}"));
    }
}
