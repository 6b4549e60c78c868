//! Why `preflight chat` could not start or went on: each names what to fix.

use std::path::PathBuf;

use preflight_engine::lifecycle::{ApiError, EngineError};

#[derive(Debug, thiserror::Error)]
pub enum TuiError {
    #[error("usage: preflight chat [--workspace DIR] [CHAT_ID] ({0}; `preflight chat --help` tells more)")]
    Usage(String),
    /// Refused with words already in the user's language.
    #[error("{0}")]
    Refused(String),
    #[error("--workspace {}: not an existing folder", .0.display())]
    NotAFolder(PathBuf),
    #[error("no chat {0} in this data folder (`preflight chat` without an id starts a new one)")]
    UnknownChat(String),
    #[error("`preflight chat` needs a terminal: its input and output must both be one")]
    NotATerminal,
    #[error("{0}. `preflight chat` runs the engine itself, so it does not start beside the window or `preflight serve` on one data folder")]
    Busy(EngineError),
    #[error(transparent)]
    Engine(EngineError),
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error("the terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

impl From<EngineError> for TuiError {
    fn from(error: EngineError) -> TuiError {
        match error {
            EngineError::Busy(_) => TuiError::Busy(error),
            error => TuiError::Engine(error),
        }
    }
}
