//! What one run is asked to do ([`RunRequest`]) and what it may reach beyond the jail's
//! fixed view ([`Reach`]): plain data, made by the server and read by the jail, the launcher
//! and the run.

use std::path::PathBuf;
use std::time::Duration;

/// What to run, where, for how long, with which environment, reaching what.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub argv: Vec<String>,
    pub cwd: PathBuf,
    pub timeout: Duration,
    pub env: Vec<(String, String)>,
    pub reach: Reach,
    /// Bytes for the command's stdin (`run_python`'s program), else it reads nothing.
    pub stdin: Option<Vec<u8>>,
    /// What stays read-only in the workspace (its `.git` entries and `.dwp`), from the
    /// snapshot the run's check starts from; `None` has the jail walk the workspace itself.
    pub protected: Option<Vec<PathBuf>>,
}

/// Which network a run has.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Network {
    /// A network namespace of its own: no interface but a downed loopback, and no abstract
    /// unix socket of the host.
    #[default]
    None,
    /// The host's own (`--network`): its loopback and abstract sockets too.
    Host,
    /// A namespace of its own given outbound-only user-mode networking by `pasta`: the
    /// internet and the LAN, never the host's loopback or abstract sockets (pip's runs).
    Outbound,
}

/// What one run may reach beyond the jail's fixed view.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    pub network: Network,
    /// Host folders bound read-only at their own path (pip's local `--find-links`).
    pub read_only: Vec<PathBuf>,
    /// Whether the workspace's `.sandbox` (the venv) is writable: only for pip's own runs,
    /// so a command cannot rewrite the code the next install runs.
    pub state_writable: bool,
}
