//! One configured server as `mcp.json` (or the host) gives it, and what the adapters may show
//! of it. Data only: nothing here runs a server.

use crate::classify::{program_of, ServerClass};
use crate::config::names::WORKSPACE_VAR;
use crate::config::remote::Remote;
use crate::error::McpError;

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub class: ServerClass,
    /// Why the entry cannot run: what is missing (the default filesystem server when the
    /// set-up did not install it).
    pub missing: Option<String>,
    /// `"readWhilePlanning": true`: planning turns see its read-only tools (DESIGN §4).
    pub read_while_planning: bool,
    /// A remote server (`url`): `command`, `args` and `env` are then empty.
    pub remote: Option<Remote>,
}

impl ServerEntry {
    /// Whether the server runs once per workspace (its `args` name `${workspace}`).
    pub fn uses_workspace(&self) -> bool {
        self.args.iter().any(|arg| arg.contains(WORKSPACE_VAR))
    }

    /// The error of using an entry that cannot run ([`ServerEntry::missing`]).
    pub fn unusable(&self) -> Option<McpError> {
        let what = self.missing.clone()?;
        Some(McpError::NotInstalled { server: self.name.clone(), what, class: self.class })
    }
}

/// What the adapters may show of a configured server (and what the host logs at start).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub class: ServerClass,
    /// The program or package that runs, which decided the class ([`program_of`]).
    pub program: String,
}

impl From<&ServerEntry> for ServerInfo {
    fn from(entry: &ServerEntry) -> ServerInfo {
        let program = match &entry.remote {
            Some(remote) => remote.url.clone(),
            None => program_of(&entry.command, &entry.args).to_owned(),
        };
        ServerInfo { name: entry.name.clone(), class: entry.class, program }
    }
}
