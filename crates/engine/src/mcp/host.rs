//! `McpHost`: the cloneable handle the rest of the engine uses. Every method names the
//! turn's profile and workspace, so a profile belongs to the turn that asked, never to the
//! process: switching profiles is computing another view over the servers already running.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::JsonObject;
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use super::config::{load_servers, McpConfig};
use super::connection::{call_tool, CallFailure, Live};
use super::error::McpError;
use super::profile::Profile;
use super::registry::{self, Limits, Prepared, Request, RunningServer};
use super::result::to_tool_output;
use super::view::{ProfileView, ToolSet, TurnView};
use crate::tool::ToolOutput;

#[derive(Clone)]
pub struct McpHost {
    requests: mpsc::Sender<Request>,
    config: Arc<McpConfig>,
}

impl McpHost {
    /// Reads `mcp.json` and starts the registry. Servers start on first use, not here.
    /// Must be called inside a tokio runtime.
    pub fn start(config: McpConfig) -> Result<McpHost, McpError> {
        let servers = load_servers(&config)?;
        let limits = Limits {
            start_timeout: config.start_timeout,
            max_message_bytes: config.max_message_bytes,
            shutdown_grace: config.shutdown_grace,
            retry_after: config.retry_after,
        };
        let requests = registry::spawn(servers, limits);
        Ok(McpHost { requests, config: Arc::new(config) })
    }

    /// The MCP tools a turn with `profile` in `workspace` is offered, starting the servers
    /// it needs. A server that cannot start is listed in `unavailable`, not an error.
    /// Cancel-safe: dropping the future (a stopped turn) leaves starts to finish unobserved.
    pub async fn tools(&self, profile: Profile, workspace: Option<&Path>) -> Result<ToolSet, McpError> {
        let workspace = canonical_workspace(workspace)?;
        Ok(self.view(profile, workspace).await?.tool_set())
    }

    /// The profile's name and tool names, for `GET /v1/chats/{id}/profile`.
    pub async fn profile_view(&self, profile: Profile, workspace: Option<&Path>) -> Result<ProfileView, McpError> {
        let workspace = canonical_workspace(workspace)?;
        Ok(self.view(profile, workspace).await?.profile_view())
    }

    /// Calls the tool a model named `name`. A name outside `profile` is refused without
    /// reaching any server, whatever the model was shown. Every failure is an error output
    /// for the model; the host stays usable.
    pub async fn call(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        name: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => return ToolOutput::error(format!("the arguments of `{name}` must be a JSON object")),
        };
        let t0 = std::time::Instant::now();
        let workspace = match canonical_workspace(workspace) {
            Ok(workspace) => workspace,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        PROBE[0].fetch_add(t0.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
        match self.dispatch(profile, workspace, name, arguments, cancel).await {
            Ok(output) | Err(output) => output,
        }
    }

    /// Reads `mcp.json` again. On an error nothing changes; otherwise servers whose entry
    /// changed or went are stopped, and new ones start on first use.
    pub async fn reload(&self) -> Result<(), McpError> {
        let servers = load_servers(&self.config)?;
        let (reply, answer) = oneshot::channel();
        self.send(Request::Reload { servers, reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// The running servers and their pids.
    pub async fn running_servers(&self) -> Result<Vec<RunningServer>, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Running { reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// Stops every server (stdin closed, SIGTERM, SIGKILL to its process group after
    /// `shutdown_grace`) and the registry. Later calls answer `McpError::Stopped`.
    pub async fn shutdown(&self) {
        let (reply, answer) = oneshot::channel();
        if self.send(Request::Shutdown { reply }).await.is_ok() {
            let _ = answer.await;
        }
    }

    async fn dispatch(
        &self,
        profile: Profile,
        workspace: Option<PathBuf>,
        name: &str,
        arguments: Option<JsonObject>,
        cancel: &CancellationToken,
    ) -> Result<ToolOutput, ToolOutput> {
        let mut retried = false;
        loop {
            // A server may be starting (up to the start timeout): a stop must not wait for it.
            let tv = std::time::Instant::now();
            let view = tokio::select! {
                view = self.view(profile, workspace.clone()) => view.map_err(|e| ToolOutput::error(e.to_string()))?,
                () = cancel.cancelled() => return Err(ToolOutput::error(format!("`{name}` was cancelled"))),
            };
            PROBE[1].fetch_add(tv.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
            let (live, tool) = view.resolve(name).ok_or_else(|| view.refusal(name))?;
            let t1 = std::time::Instant::now();
            let outcome = call_tool(&live.peer, tool, arguments.clone(), self.config.call_timeout, cancel).await;
            PROBE[2].fetch_add(t1.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed);
            match outcome {
                Ok(result) => { let t2 = std::time::Instant::now(); let o = to_tool_output(&result, self.config.max_result_bytes, name); PROBE[3].fetch_add(t2.elapsed().as_nanos() as u64, std::sync::atomic::Ordering::Relaxed); return Ok(o) },
                Err(CallFailure::NotSent) if !retried => {
                    // The server died before our request reached it: a new one may take it.
                    self.report_dead(live).await;
                    retried = true;
                }
                Err(failure) => {
                    if matches!(failure, CallFailure::NotSent | CallFailure::Lost) {
                        self.report_dead(live).await;
                    }
                    return Err(describe_failure(failure, name, &live.key.server));
                }
            }
        }
    }

    async fn view(&self, profile: Profile, workspace: Option<PathBuf>) -> Result<Arc<TurnView>, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Prepare { profile, workspace, reply }).await?;
        let pending = match answer.await.map_err(|_| McpError::Stopped)? {
            Prepared::Ready(view) => return Ok(view),
            Prepared::Pending(pending) => pending,
        };
        let mut servers = Vec::with_capacity(pending.len());
        for p in pending {
            let outcome = p.ready.await.unwrap_or(Err(McpError::Stopped));
            servers.push((p.server, outcome));
        }
        Ok(Arc::new(TurnView::new(profile, servers)))
    }

    async fn report_dead(&self, live: &Live) {
        let _ = self.send(Request::Dead { key: live.key.clone(), generation: live.generation }).await;
    }

    async fn send(&self, request: Request) -> Result<(), McpError> {
        self.requests.send(request).await.map_err(|_| McpError::Stopped)
    }
}

/// The workspace as one canonical path, so that `/w`, `/w/` and a symlink to it share
/// servers, and the filesystem server is rooted where its own checks will look.
fn canonical_workspace(workspace: Option<&Path>) -> Result<Option<PathBuf>, McpError> {
    let Some(folder) = workspace else { return Ok(None) };
    let error = |message: String| McpError::Workspace { path: folder.to_path_buf(), message };
    let canonical = std::fs::canonicalize(folder).map_err(|e| error(e.to_string()))?;
    if !canonical.is_dir() {
        return Err(error("is not a folder".into()));
    }
    Ok(Some(canonical))
}

fn describe_failure(failure: CallFailure, name: &str, server: &str) -> ToolOutput {
    ToolOutput::error(match failure {
        CallFailure::NotSent => {
            format!("MCP server `{server}` could not be reached for `{name}`; it starts again on next use")
        }
        CallFailure::Lost => format!(
            "MCP server `{server}` closed the connection during `{name}` (the call may or may not \
             have run); it starts again on next use"
        ),
        CallFailure::TimedOut(limit) => {
            format!("`{name}` did not answer within {}; the call was cancelled", human(limit))
        }
        CallFailure::Cancelled => format!("`{name}` was cancelled"),
        CallFailure::Refused(message) | CallFailure::Unexpected(message) => format!("`{name}` failed: {message}"),
    })
}

fn human(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{} s", duration.as_secs_f64())
    }
}

pub static PROBE: [std::sync::atomic::AtomicU64; 4] = [const { std::sync::atomic::AtomicU64::new(0) }; 4];
