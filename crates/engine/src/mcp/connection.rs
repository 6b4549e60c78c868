//! One running server as the host uses it: starting it (spawn, `initialize`, `tools/list`
//! within the start timeout) and one `tools/call` with a timeout and a cancellation token.

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelledNotification, CancelledNotificationParam,
    ClientCapabilities, ClientConfig, ClientNotification, ClientRequest, Implementation,
    JsonObject, ProtocolVersion, Request, RequestId, ServerResult, Tool,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::{Peer, RoleClient, ServiceError, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::classify::ServerClass;
use super::config::Launch;
use super::error::McpError;
use super::process::{self, Pipes, ServerProcess};
use super::registry::ServerKey;
use super::schema::clean_schema;
use super::transport::StdioTransport;

/// What a caller needs to use a running server; cheap to clone.
#[derive(Clone)]
pub(crate) struct Live {
    pub key: ServerKey,
    pub class: ServerClass,
    /// Counts the starts of this (server, workspace): tells a respawned server from the old.
    pub generation: u64,
    pub pid: u32,
    pub peer: Peer<RoleClient>,
    pub tools: Arc<[RemoteTool]>,
    /// The entry's `readWhilePlanning` (set by the registry once started).
    pub marked: bool,
}

impl Live {
    /// Whether the connection still looks usable from outside the registry: its transport
    /// is open and its process has not exited (rmcp's `is_closed()` stays false after the
    /// server dies, so it is not asked).
    pub(crate) fn is_open(&self) -> bool {
        !self.peer.is_transport_closed() && !process::has_exited_without_reaping(self.pid)
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

/// A running server, owned by the registry.
pub(crate) struct Connection {
    pub live: Live,
    pub process: ServerProcess,
    /// Dropping it stops rmcp's service loop and closes the server's stdin.
    pub service: RunningService<RoleClient, ClientConfig>,
}

pub(crate) struct StartLimits {
    pub start_timeout: Duration,
    pub max_message_bytes: usize,
}

/// Spawns and initialises `server`; on any failure its process group is killed.
pub(crate) async fn start(
    key: ServerKey,
    class: ServerClass,
    launch: Launch,
    generation: u64,
    limits: StartLimits,
) -> Result<Connection, McpError> {
    let server = key.server.clone();
    let (mut process, pipes) = process::spawn(&server, &launch)?;
    let started =
        tokio::time::timeout(limits.start_timeout, handshake(server.clone(), pipes, &limits)).await;
    let (service, tools) = match started {
        Ok(Ok(done)) => done,
        Ok(Err(message)) => {
            let message = explain_failed_start(message, &mut process).await;
            return Err(McpError::Initialize { server: server.to_string(), message });
        }
        Err(_) => {
            return Err(McpError::StartTimeout {
                server: server.to_string(),
                timeout: limits.start_timeout,
            })
        }
    };
    tracing::info!(server = %server, pid = process.pid(), tools = tools.len(), "MCP server started");
    let peer = service.peer().clone();
    let tools: Arc<[RemoteTool]> = tools.iter().map(remote_tool).collect();
    let pid = process.pid();
    Ok(Connection {
        live: Live { key, class, generation, pid, peer, tools, marked: false },
        process,
        service,
    })
}

async fn handshake(
    server: Arc<str>,
    pipes: Pipes,
    limits: &StartLimits,
) -> Result<(RunningService<RoleClient, ClientConfig>, Vec<Tool>), String> {
    let transport =
        StdioTransport::new(server, pipes.stdin, pipes.stdout, limits.max_message_bytes);
    let service = identity().serve(transport).await.map_err(|e| e.to_string())?;
    let tools =
        service.peer().list_all_tools().await.map_err(|e| format!("tools/list failed: {e}"))?;
    Ok((service, tools))
}

/// Preflight's own name in `initialize` (rmcp would say "rmcp"), on the last protocol
/// version that has the `initialize` handshake stdio servers expect.
fn identity() -> ClientConfig {
    let client = Implementation::new("preflight", env!("CARGO_PKG_VERSION"));
    ClientConfig::new(ClientCapabilities::default(), client)
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
}

/// rmcp's reason, plus how the process ended and what it last said on stderr.
async fn explain_failed_start(message: String, process: &mut ServerProcess) -> String {
    let mut explained = message;
    if let Some(status) = process.exit_status(Duration::from_millis(500)).await {
        explained.push_str(&format!(" (the server exited: {status})"));
    }
    let tail = process.stderr_tail();
    if !tail.is_empty() {
        explained.push_str(&format!("; its last words on stderr: {}", tail.join(" | ")));
    }
    explained
}

fn remote_tool(tool: &Tool) -> RemoteTool {
    RemoteTool {
        name: tool.name.to_string(),
        description: tool.description.as_deref().unwrap_or_default().to_string(),
        input_schema: clean_schema(&tool.input_schema),
        read_only: tool.annotations.as_ref().is_some_and(|hints| {
            hints.read_only_hint == Some(true) && hints.destructive_hint != Some(true)
        }),
    }
}

/// Why a call produced no result.
#[derive(Debug)]
pub(crate) enum CallFailure {
    /// The request never reached the server (its transport was already closed): safe to
    /// send again to a new server.
    NotSent,
    /// The connection closed after the request was sent: it may have run.
    Lost,
    TimedOut(Duration),
    Cancelled,
    /// The server answered with a JSON-RPC error.
    Refused(String),
    Unexpected(String),
}

/// `tools/call` of `tool` with rmcp's per-request timeout; `cancel` aborts the wait and
/// tells the server (`notifications/cancelled`).
pub(crate) async fn call_tool(
    peer: &Peer<RoleClient>,
    tool: &str,
    arguments: Option<JsonObject>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<CallToolResult, CallFailure> {
    if cancel.is_cancelled() {
        return Err(CallFailure::Cancelled);
    }
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Some(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    let request = ClientRequest::CallToolRequest(Request::new(params));
    let options = PeerRequestOptions::with_timeout(timeout);
    let handle =
        peer.send_request_with_option(request, options).await.map_err(|_| CallFailure::NotSent)?;
    let id = handle.id.clone();
    let response = tokio::select! {
        response = handle.await_response() => response,
        () = cancel.cancelled() => {
            notify_cancelled(peer, id).await;
            return Err(CallFailure::Cancelled);
        }
    };
    match response {
        Ok(ServerResult::CallToolResult(result)) => Ok(result),
        Ok(ServerResult::EmptyResult(_)) => Ok(CallToolResult::default()),
        Ok(_) => Err(CallFailure::Unexpected(
            "the server answered with something other than a tool result".into(),
        )),
        Err(ServiceError::McpError(error)) => Err(CallFailure::Refused(error.message.into_owned())),
        Err(ServiceError::TransportSend(_)) => Err(CallFailure::NotSent),
        Err(ServiceError::TransportClosed) => Err(CallFailure::Lost),
        Err(ServiceError::Timeout { timeout }) => Err(CallFailure::TimedOut(timeout)),
        Err(other) => Err(CallFailure::Unexpected(other.to_string())),
    }
}

async fn notify_cancelled(peer: &Peer<RoleClient>, id: RequestId) {
    let param = CancelledNotificationParam::new(Some(id), Some("cancelled by the user".into()));
    let notification = ClientNotification::CancelledNotification(CancelledNotification::new(param));
    // A server that is gone cannot be told; there is nothing else to do.
    let _ = peer.send_notification(notification).await;
}
