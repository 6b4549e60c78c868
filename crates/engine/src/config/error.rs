//! A bad `config.toml`, named by file, line and key so the user can fix it.

use std::path::PathBuf;
use std::sync::Arc;

#[derive(Debug, Clone, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {}: {source}", .path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: Arc<std::io::Error>,
    },
    /// The file is not TOML.
    #[error("{}:{line}: {problem}", .path.display())]
    Syntax { path: PathBuf, line: usize, problem: String },
    /// A key that is unknown, missing, or holds a value it cannot take. `key` is dotted,
    /// e.g. `provider.kind`.
    #[error("{}:{line}: {key}: {problem}", .path.display())]
    Invalid { path: PathBuf, line: usize, key: String, problem: String },
    /// The new file could not be put in place (or the old one back).
    #[error("cannot write {}: {}", .path.display(), .source.source)]
    Write {
        path: PathBuf,
        #[source]
        source: Arc<preflight_files::FileError>,
    },
}

impl ConfigError {
    /// The dotted key at fault, when the error is about one.
    pub fn key(&self) -> Option<&str> {
        match self {
            ConfigError::Invalid { key, .. } => Some(key),
            _ => None,
        }
    }

    /// The line at fault (from 1), when the file could be read.
    pub fn line(&self) -> Option<usize> {
        match self {
            ConfigError::Syntax { line, .. } | ConfigError::Invalid { line, .. } => Some(*line),
            ConfigError::Read { .. } | ConfigError::Write { .. } => None,
        }
    }
}
