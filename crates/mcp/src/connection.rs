//! One running server as the host uses it: starting it (a child process over stdio, or a
//! remote one over HTTP: `remote/`; then the handshake of `handshake.rs`, all within the
//! start timeout) and one `tools/call` with a timeout and a cancellation token (in as many
//! rounds as a 2026-07-28 server's `input_required` answers ask for).

use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResult, CancelledNotification, CancelledNotificationParam,
    ClientNotification, ClientRequest, JsonObject, Request, RequestId, ServerResult, Tool,
};
use rmcp::service::{PeerRequestOptions, RunningService};
use rmcp::{Peer, RoleClient, ServiceError};
use tokio_util::sync::CancellationToken;

use crate::classify::ServerClass;
use crate::client::{next_round, Asker, HostClient, MAX_ROUNDS};
use crate::confinement::{Reported, REPORT_KEY};
use crate::error::McpError;
use crate::handshake::handshake;
use crate::key::ServerKey;
use crate::live::{Live, RemoteTool};
use crate::local::{self, Launch, Pipes, ServerProcess, StdioTransport};
use crate::remote::{self, TokenVault};
use crate::schema::clean_schema;
use crate::target::Target;

/// A running server, owned by the connections task.
pub(crate) struct Connection {
    pub live: Live,
    /// `None` for a remote server.
    pub process: Option<ServerProcess>,
    /// Dropping it stops rmcp's service loop and closes the server's stdin (or, remotely,
    /// ends the HTTP session).
    pub service: RunningService<RoleClient, HostClient>,
}

impl Connection {
    /// Ends the session and, for a child process, stops its group (SIGTERM, then SIGKILL
    /// after `grace`).
    pub(crate) async fn stop(self, grace: Duration) {
        let Connection { service, process, .. } = self;
        let _ = tokio::time::timeout(grace, service.cancel()).await;
        if let Some(process) = process {
            process.shutdown(grace).await;
        }
    }
}

pub(crate) struct StartLimits {
    pub start_timeout: Duration,
    pub max_message_bytes: usize,
    /// Signed-in servers' tokens.
    pub tokens: Option<TokenVault>,
}

/// Starts and initialises `server`; on any failure its process group is killed.
pub(crate) async fn start(
    key: ServerKey,
    class: ServerClass,
    target: Target,
    generation: u64,
    limits: StartLimits,
) -> Result<Connection, McpError> {
    let server = key.server.clone();
    let (service, tools, process) = match target {
        Target::Process(launch) => {
            let started = start_process(&server, &launch, &limits).await;
            let (service, tools, process) =
                started.map_err(|error| refused_to_downgrade(class, &launch, error))?;
            (service, tools, Some(process))
        }
        Target::Remote(remote) => {
            let tokens = limits.tokens.as_ref().map(|vault| vault.tokens(&server, &remote.url));
            let started = remote::connect(&server, &remote, limits.max_message_bytes, tokens);
            let (service, tools) = within(&server, &limits, started).await??;
            (service, tools, None)
        }
    };
    let pid = process.as_ref().map(ServerProcess::pid);
    tracing::info!(server = %server, ?pid, tools = tools.len(), "MCP server started");
    let peer = service.peer().clone();
    let confinement = reported_confinement(&peer);
    let askers = Arc::clone(&service.service().askers);
    let tools: Arc<[RemoteTool]> = tools.iter().map(remote_tool).collect();
    let marked = false;
    let live = Live { key, class, generation, pid, peer, tools, marked, askers, confinement };
    Ok(Connection { live, process, service })
}

async fn start_process(
    server: &Arc<str>,
    launch: &Launch,
    limits: &StartLimits,
) -> Result<(RunningService<RoleClient, HostClient>, Vec<Tool>, ServerProcess), McpError> {
    let (mut process, pipes) = local::spawn(server, launch)?;
    let Pipes { stdin, stdout } = pipes;
    let transport = StdioTransport::new(server.clone(), stdin, stdout, limits.max_message_bytes);
    match within(server, limits, handshake(server, transport)).await? {
        Ok((service, tools)) => Ok((service, tools, process)),
        Err(McpError::Initialize { server, message }) => {
            let message = explain_failed_start(message, &mut process).await;
            Err(McpError::Initialize { server, message })
        }
        Err(other) => Err(other),
    }
}

/// A code sandbox asked for bubblewrap (`--confinement bubblewrap`) that ended before its
/// handshake refused to run unconfined: [`McpError::Unconfinable`], which says what to do.
fn refused_to_downgrade(class: ServerClass, launch: &Launch, error: McpError) -> McpError {
    let asked = launch.args.windows(2).any(|pair| pair == ["--confinement", "bubblewrap"]);
    match error {
        McpError::Initialize { server, message } if class == ServerClass::CodeSandbox && asked => {
            McpError::Unconfinable { server, message }
        }
        other => other,
    }
}

/// `started` within the start timeout.
async fn within<T>(
    server: &str,
    limits: &StartLimits,
    started: impl std::future::Future<Output = T>,
) -> Result<T, McpError> {
    tokio::time::timeout(limits.start_timeout, started).await.map_err(|_| McpError::StartTimeout {
        server: server.to_string(),
        timeout: limits.start_timeout,
    })
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

/// What the server said of its confinement in its `initialize` result.
fn reported_confinement(peer: &Peer<RoleClient>) -> Reported {
    let info = peer.peer_info();
    let experimental = info.as_ref().and_then(|info| info.capabilities.experimental.as_ref());
    Reported::read(experimental.and_then(|map| map.get(REPORT_KEY)))
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
    /// A remote server wants (more) authorization: the user has to sign in; `challenge` is
    /// its `WWW-Authenticate`.
    SignIn {
        message: String,
        challenge: String,
    },
    Unexpected(String),
}

/// `tools/call` of `tool` on `live`, failing after `timeout` of waiting *without* an open
/// question to the user (an elicitation pauses the clock: the user is never raced);
/// `cancel` aborts the wait and tells the server (`notifications/cancelled`).
///
/// An `input_required` answer (2026-07-28) is followed: its questions go to the call's own
/// `asker` (none: declined), and the call is sent again, with a
/// new id, the answers and the server's `requestState` exactly as it came (none when it
/// sent none). The time spent asking is not counted.
pub(crate) async fn call_tool(
    live: &Live,
    tool: &str,
    asker: Option<&Arc<dyn Asker>>,
    arguments: Option<JsonObject>,
    timeout: Duration,
    cancel: &CancellationToken,
) -> Result<CallToolResult, CallFailure> {
    let mut params = CallToolRequestParams::new(tool.to_string());
    if let Some(arguments) = arguments {
        params = params.with_arguments(arguments);
    }
    let mut waited = Duration::ZERO;
    for round in 0..MAX_ROUNDS {
        let response = match one_round(live, params.clone(), timeout, &mut waited, cancel).await {
            // A later round not sent: the first one may have run on this server.
            Err(CallFailure::NotSent) if round > 0 => return Err(CallFailure::Lost),
            other => other?,
        };
        let Ok(ServerResult::InputRequiredResult(wanted)) = response else {
            return outcome(response);
        };
        let next = next_round(&live.key.server, &live.askers, asker, wanted).await;
        (params.input_responses, params.request_state) = next.map_err(CallFailure::Unexpected)?;
    }
    Err(CallFailure::Unexpected(format!("the server still wanted input after {MAX_ROUNDS} rounds")))
}

/// One `tools/call` request and its answer, within what is left of `timeout`.
async fn one_round(
    live: &Live,
    params: CallToolRequestParams,
    timeout: Duration,
    waited: &mut Duration,
    cancel: &CancellationToken,
) -> Result<Result<ServerResult, ServiceError>, CallFailure> {
    if cancel.is_cancelled() {
        return Err(CallFailure::Cancelled);
    }
    let peer = &live.peer;
    let request = ClientRequest::CallToolRequest(Request::new(params));
    let handle = peer
        .send_request_with_option(request, PeerRequestOptions::no_options())
        .await
        .map_err(|_| CallFailure::NotSent)?;
    let id = handle.id.clone();
    let response = handle.await_response();
    tokio::pin!(response);
    let tick = Duration::from_millis(250).min(timeout);
    loop {
        tokio::select! {
            response = &mut response => return Ok(response),
            () = cancel.cancelled() => {
                notify_cancelled(peer, id).await;
                return Err(CallFailure::Cancelled);
            }
            () = tokio::time::sleep(tick) => {
                if live.askers.open_questions() == 0 {
                    *waited += tick;
                }
                if *waited >= timeout {
                    notify_cancelled(peer, id).await;
                    return Err(CallFailure::TimedOut(timeout));
                }
            }
        }
    }
}

/// What a `tools/call` response means for the caller.
fn outcome(response: Result<ServerResult, ServiceError>) -> Result<CallToolResult, CallFailure> {
    match response {
        Ok(ServerResult::CallToolResult(result)) => Ok(result),
        Ok(ServerResult::EmptyResult(_)) => Ok(CallToolResult::default()),
        Ok(_) => Err(CallFailure::Unexpected(
            "the server answered with something other than a tool result".into(),
        )),
        Err(ServiceError::McpError(error)) => Err(CallFailure::Refused(error.message.into_owned())),
        Err(error @ ServiceError::TransportSend(_)) => match error.auth_challenge() {
            Some(challenge) => Err(CallFailure::SignIn {
                challenge: challenge.to_owned(),
                message: error.to_string(),
            }),
            None => Err(CallFailure::NotSent),
        },
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
