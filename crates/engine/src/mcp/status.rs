//! How the configured servers stand, for the settings screen: each started instance's
//! state (starting, running with its tools, failed with the error and the server's last
//! stderr lines), a restart, and a probe that starts an entry on its own, lists its tools
//! and stops it again, without touching the servers chats use.

use std::path::PathBuf;

use tokio::sync::oneshot;

use super::config::ServerEntry;
use super::connection::{self, StartLimits};
use super::error::McpError;
use super::host::McpHost;
use super::registry::{Request, ServerKey};

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

impl ProbedTool {
    pub(crate) fn of(tool: &super::connection::RemoteTool) -> ProbedTool {
        ProbedTool { name: tool.name.clone(), read_only: tool.read_only }
    }
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

impl McpHost {
    /// Every started instance, by server then workspace.
    pub async fn status(&self) -> Result<Vec<ServerStatus>, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Status { reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// Stops every instance of `server` (and forgets a failed start): the next use starts
    /// it afresh. Returns how many instances there were.
    pub async fn restart(&self, server: &str) -> Result<usize, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Restart { server: server.to_owned(), reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// Starts `entry` on its own (a server using `${workspace}` gets an empty scratch
    /// folder), lists its tools, and stops it. The servers chats use are not touched.
    pub async fn probe(&self, entry: &ServerEntry) -> Result<Vec<ProbedTool>, McpError> {
        if let Some(error) = entry.unusable() {
            return Err(error);
        }
        let scratch =
            std::env::temp_dir().join(format!("preflight-probe-{}", uuid::Uuid::new_v4()));
        let workspace = entry.uses_workspace().then(|| scratch.clone());
        if let Some(folder) = &workspace {
            std::fs::create_dir_all(folder).map_err(|error| McpError::Workspace {
                path: folder.clone(),
                message: error.to_string(),
            })?;
        }
        let probed = self.probe_in(entry, workspace.clone()).await;
        if workspace.is_some() {
            let _ = std::fs::remove_dir_all(&scratch);
        }
        probed
    }

    async fn probe_in(
        &self,
        entry: &ServerEntry,
        workspace: Option<PathBuf>,
    ) -> Result<Vec<ProbedTool>, McpError> {
        let Some(target) = entry.target(workspace.as_deref(), self.base()) else {
            let message = "it needs a workspace".to_owned();
            return Err(McpError::Spawn { server: entry.name.clone(), message });
        };
        let config = self.config();
        let limits = StartLimits {
            start_timeout: config.start_timeout,
            max_message_bytes: config.max_message_bytes,
            tokens: config.tokens.clone(),
        };
        let key = ServerKey { server: entry.name.as_str().into(), workspace };
        let started = connection::start(key, entry.class, target, 0, limits).await?;
        let tools = started.live.tools.iter().map(ProbedTool::of).collect();
        started.stop(config.shutdown_grace).await;
        Ok(tools)
    }
}
