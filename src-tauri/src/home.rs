//! Where the desktop app keeps its data, resolved once at start (the engine takes paths as
//! values). The same rules as the `preflight` binary's `home.rs`: `$PREFLIGHT_HOME`, else
//! `$XDG_DATA_HOME/preflight`, else `~/.local/share/preflight`. The filesystem server and the
//! code sandbox are found by `preflight_engine::bundled`, as for `preflight`.
//! The models folder is the one `preflight model fetch` fills.

use std::path::{Path, PathBuf};

/// The data folder, created (0700) when absent.
pub fn data_home() -> Result<PathBuf, String> {
    let home = match non_empty_var("PREFLIGHT_HOME") {
        Some(home) => PathBuf::from(home),
        None => platform_data_dir()?.join("preflight"),
    };
    create_private_dir(&home)?;
    Ok(std::path::absolute(&home).unwrap_or(home))
}

fn non_empty_var(name: &str) -> Option<std::ffi::OsString> {
    std::env::var_os(name).filter(|value| !value.is_empty())
}

fn platform_data_dir() -> Result<PathBuf, String> {
    if let Some(data) = non_empty_var("XDG_DATA_HOME") {
        return Ok(PathBuf::from(data));
    }
    match non_empty_var("HOME") {
        Some(home) => Ok(PathBuf::from(home).join(".local/share")),
        None => {
            Err("neither PREFLIGHT_HOME nor HOME is set: cannot tell where to keep data".into())
        }
    }
}

pub fn create_private_dir(path: &Path) -> Result<(), String> {
    use std::os::unix::fs::DirBuilderExt;
    if path.is_dir() {
        return Ok(());
    }
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|error| format!("creating the folder {}: {error}", path.display()))
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
