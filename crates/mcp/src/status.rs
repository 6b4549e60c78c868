//! What the settings screen is shown of the servers: each started instance's state, the tools
//! a probe found, and how a remote server's sign-in stands (with the challenges it was
//! sent). Data only; `settings.rs` fills it in.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Mutex;

/// One started instance of a configured server (one per workspace for `${workspace}` ones).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerStatus {
    pub server: String,
    pub workspace: Option<PathBuf>,
    pub state: ServerState,
}

/// A tool a server lists, and whether it is annotated read-only (`readOnlyHint: true`, not
/// `destructiveHint`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbedTool {
    pub name: String,
    pub read_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerState {
    Starting,
    Running {
        /// `None` for a remote server.
        pid: Option<u32>,
        tools: Vec<ProbedTool>,
    },
    /// The start failed: the error says why, with the server's last stderr lines.
    Failed {
        error: String,
    },
}

/// How a server's sign-in stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SignInState {
    /// Waiting for the browser: `authorization_url` is the page to open.
    Pending {
        authorization_url: String,
    },
    SignedIn,
    Failed {
        error: String,
    },
}

/// What the host remembers per server.
#[derive(Default)]
pub(crate) struct SignIns {
    challenges: Mutex<HashMap<String, String>>,
    states: Mutex<HashMap<String, SignInState>>,
}

impl SignIns {
    pub(crate) fn note_challenge(&self, server: &str, challenge: &str) {
        if let Ok(mut challenges) = self.challenges.lock() {
            challenges.insert(server.to_owned(), challenge.to_owned());
        }
    }

    pub(crate) fn take_challenge(&self, server: &str) -> Option<String> {
        self.challenges.lock().ok()?.remove(server)
    }

    pub(crate) fn set(&self, server: &str, state: SignInState) {
        if let Ok(mut states) = self.states.lock() {
            states.insert(server.to_owned(), state);
        }
    }

    pub(crate) fn state(&self, server: &str) -> Option<SignInState> {
        self.states.lock().ok()?.get(server).cloned()
    }

    pub(crate) fn forget(&self, server: &str) {
        if let Ok(mut states) = self.states.lock() {
            states.remove(server);
        }
    }
}
