//! Which workspaces the user trusts for hooks: `$PREFLIGHT_HOME/hooks-trust.json`,
//! `{"trusted":["/canonical/path", …]}`. A folder is trusted by its canonical path, so trust
//! never carries to another folder (a copy, a parent, a symlink's other name resolves to
//! what it points at).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use serde_json::{json, Value};

/// The trust file in the data folder.
pub const TRUST_FILE: &str = "hooks-trust.json";

/// Why trust could not be changed.
#[derive(Debug, thiserror::Error)]
pub enum HookTrustError {
    #[error("{path} is not a folder here: {source}")]
    NotAFolder { path: String, source: std::io::Error },
    #[error(transparent)]
    Write(#[from] preflight_files::FileError),
}

/// The workspaces the user trusts for hooks, as the trust file keeps them.
pub struct Trust {
    file: PathBuf,
    trusted: Mutex<Vec<PathBuf>>,
}

impl Trust {
    /// The trust of the data folder `home`; none when its file is missing or unreadable.
    pub fn open(home: &Path) -> Trust {
        let file = home.join(TRUST_FILE);
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        let value: Value = serde_json::from_str(&text).unwrap_or(Value::Null);
        let listed = value.get("trusted").and_then(Value::as_array).cloned().unwrap_or_default();
        let trusted = listed.iter().filter_map(Value::as_str).map(PathBuf::from).collect();
        Trust { file, trusted: Mutex::new(trusted) }
    }

    /// `folder`'s canonical path when the user trusts it for hooks.
    pub fn folder(&self, folder: &Path) -> Option<PathBuf> {
        let canonical = folder.canonicalize().ok()?;
        let trusted = self.trusted.lock().unwrap_or_else(PoisonError::into_inner);
        trusted.contains(&canonical).then_some(canonical)
    }

    pub fn is_trusted(&self, folder: &Path) -> bool {
        self.folder(folder).is_some()
    }

    /// The trusted folders, canonical.
    pub fn list(&self) -> Vec<PathBuf> {
        self.trusted.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Trusts `folder` for hooks, or stops trusting it; written to the trust file at once.
    /// Its canonical path.
    pub fn set(&self, folder: &Path, trusted: bool) -> Result<PathBuf, HookTrustError> {
        let not_a_folder =
            |source| HookTrustError::NotAFolder { path: folder.display().to_string(), source };
        let canonical = folder.canonicalize().map_err(not_a_folder)?;
        if !canonical.is_dir() {
            return Err(not_a_folder(std::io::Error::other("it is a file")));
        }
        let mut list = self.trusted.lock().unwrap_or_else(PoisonError::into_inner);
        let mut next = list.clone();
        next.retain(|known| *known != canonical);
        if trusted {
            next.push(canonical.clone());
        }
        let names: Vec<String> = next.iter().map(|path| path.display().to_string()).collect();
        let text = serde_json::to_vec_pretty(&json!({ "trusted": names })).unwrap_or_default();
        preflight_files::write_atomic(&self.file, &text)?;
        *list = next;
        Ok(canonical)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_by_canonical_path_and_survives_a_reopen() {
        let home = tempfile::tempdir().unwrap();
        let place = tempfile::tempdir().unwrap();
        let (trusted, other) = (place.path().join("ws"), place.path().join("other"));
        std::fs::create_dir_all(trusted.join("sub")).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::os::unix::fs::symlink(&trusted, place.path().join("link")).unwrap();
        let trust = Trust::open(home.path());
        trust.set(&trusted.join("sub/.."), true).unwrap();
        assert!(trust.is_trusted(&trusted));
        assert!(trust.is_trusted(&place.path().join("link")), "the same folder by another name");
        assert!(!trust.is_trusted(&trusted.join("sub")), "trust does not carry to a subfolder");
        assert!(!trust.is_trusted(&other));
        assert!(!trust.is_trusted(place.path()), "nor to a parent");
        assert!(Trust::open(home.path()).is_trusted(&trusted));
        trust.set(&trusted, false).unwrap();
        assert!(!Trust::open(home.path()).is_trusted(&trusted));
        assert!(trust.set(&place.path().join("gone"), true).is_err());
    }
}
