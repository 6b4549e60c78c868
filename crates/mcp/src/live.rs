//! A running server as its callers see it: cheap clones of the rmcp peer and the tools it
//! listed, handed out by the connections task (which alone owns the connection itself).

use std::sync::Arc;

use rmcp::{Peer, RoleClient};
use serde_json::Value;

use crate::classify::ServerClass;
use crate::client::Askers;
use crate::confinement::Reported;
use crate::key::ServerKey;
use crate::local;
use crate::status::ProbedTool;

/// What a caller needs to use a running server; cheap to clone.
#[derive(Clone)]
pub(crate) struct Live {
    pub key: ServerKey,
    pub class: ServerClass,
    /// Counts the starts of this (server, workspace): tells a respawned server from the old.
    pub generation: u64,
    /// The child process; `None` for a remote server.
    pub pid: Option<u32>,
    pub peer: Peer<RoleClient>,
    pub tools: Arc<[RemoteTool]>,
    /// The entry's `readWhilePlanning` (set by the connections task once started).
    pub marked: bool,
    /// Who is asked when the server sends `elicitation/create` (`client.rs`).
    pub askers: Arc<Askers>,
    /// What the server said of its confinement at `initialize` (a code sandbox's calls are
    /// judged by it, `turn/consent.rs`).
    pub confinement: Reported,
}

impl Live {
    /// Whether the connection still looks usable from outside the connections task: its
    /// transport is open and its process has not exited (rmcp's `is_closed()` stays false after the
    /// server dies, so it is not asked).
    pub(crate) fn is_open(&self) -> bool {
        !self.peer.is_transport_closed()
            && self.pid.is_none_or(|pid| !local::has_exited_without_reaping(pid))
    }
}

/// A tool as the server listed it, its schema already cleaned for provider APIs.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RemoteTool {
    pub name: String,
    pub description: String,
    pub input_schema: Value,
    /// Annotated `readOnlyHint: true` and not `destructiveHint: true`.
    pub read_only: bool,
}

impl RemoteTool {
    /// The tool as the settings screen shows it.
    pub(crate) fn probed(&self) -> ProbedTool {
        ProbedTool { name: self.name.clone(), read_only: self.read_only }
    }
}
