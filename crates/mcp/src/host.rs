//! `McpHost`: the cloneable handle the rest of the engine uses. Every method names the
//! turn's profile and workspace, so a profile belongs to the turn that asked, never to the
//! process: switching profiles is computing another view over the servers already running.

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use preflight_protocol::tool::ToolOutput;
use rmcp::model::{CallToolResult, JsonObject};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot, watch};
use tokio_util::sync::CancellationToken;

use crate::classify::ServerClass;
use crate::client::{Asker, Decliner};
use crate::config::{ServerEntry, ServerInfo};
use crate::confinement::ConfinementMode;
use crate::connection::{call_tool, CallFailure};
use crate::connections::{self, profile_index, Limits, Prepared, Request, RunningServer, Views};
use crate::error::McpError;
use crate::live::Live;
use crate::local::BaseEnvironment;
use crate::options::{load_servers, McpOptions};
use crate::status::SignIns;
use crate::turn::{
    refused_unconfined, refused_write, to_tool_output, Profile, ProfileView, SandboxCallError,
    SandboxRun, ToolSet, TurnView,
};

#[derive(Clone)]
pub struct McpHost {
    requests: mpsc::Sender<Request>,
    /// The connections task's published views (read-only snapshots).
    views: watch::Receiver<Arc<Views>>,
    options: Arc<McpOptions>,
    /// The configured servers as the adapters may show them; replaced on reload.
    servers: Arc<RwLock<Vec<ServerInfo>>>,
    /// What every server starts from (the connections task has the same).
    base: Arc<BaseEnvironment>,
    /// Remote servers' challenges and sign-ins (`settings.rs`).
    sign_ins: Arc<SignIns>,
    /// Whether this handle acts for a chat whose user allowed its code to run unconfined
    /// ([`McpHost::with_unconfined_consent`]); `false` for the host as started.
    unconfined_consent: bool,
}

impl McpHost {
    /// Reads `mcp.json` and starts the connections task. Servers start on first use, not here;
    /// the environment they get is taken from this process now (`local/launch.rs`). Logs each
    /// server's class. Must be called inside a tokio runtime.
    pub fn start(options: McpOptions) -> Result<McpHost, McpError> {
        let servers = load_servers(&options)?;
        let infos = Arc::new(RwLock::new(describe(&servers)));
        let base =
            Arc::new(BaseEnvironment::of_this_process(&options.inherited_env, &options.data_dir));
        let limits = Limits {
            start_timeout: options.start_timeout,
            max_message_bytes: options.max_message_bytes,
            shutdown_grace: options.shutdown_grace,
            retry_after: options.retry_after,
            tokens: options.tokens.clone(),
        };
        let (requests, views) = connections::spawn(servers, limits, Arc::clone(&base));
        let sign_ins = Arc::default();
        let options = Arc::new(options);
        let unconfined_consent = false;
        Ok(McpHost { requests, views, options, servers: infos, base, sign_ins, unconfined_consent })
    }

    /// This handle acting for a chat whose user did (`true`) or did not allow its code to run
    /// unconfined (approved its plan with "Run unconfined"). A code sandbox that said at start
    /// that it runs unconfined, or said nothing, serves only a handle with that consent, or
    /// every handle where `[sandbox] confinement = "off"`; others get its calls refused.
    pub fn with_unconfined_consent(&self, consent: bool) -> McpHost {
        McpHost { unconfined_consent: consent, ..self.clone() }
    }

    /// Whether this handle's calls may go to a code sandbox that runs unconfined.
    fn unconfined_allowed(&self) -> bool {
        let off = |sandbox: &crate::SandboxDefault| sandbox.confinement == ConfinementMode::Off;
        self.unconfined_consent || self.options.sandbox.as_ref().is_some_and(off)
    }

    /// The configured servers: name, class and the program or package that runs.
    pub fn servers(&self) -> Vec<ServerInfo> {
        self.servers.read().map(|servers| servers.clone()).unwrap_or_default()
    }

    /// The MCP tools a turn with `profile` in `workspace` is offered, starting the servers
    /// it needs. A server that cannot start is listed in `unavailable`, not an error.
    /// Cancel-safe: dropping the future (a stopped turn) leaves starts to finish unobserved.
    pub async fn tools(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
    ) -> Result<ToolSet, McpError> {
        Ok(self.view(profile, workspace, true).await?.tool_set())
    }

    /// The profile's name and tool names, for `GET /v1/chats/{id}/profile`; a filesystem
    /// server that is not installed is this error rather than a profile without it.
    pub async fn profile_view(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
    ) -> Result<ProfileView, McpError> {
        let view = self.view(profile, workspace, true).await?;
        match view.not_installed() {
            Some(error) => Err(error.clone()),
            None => Ok(view.profile_view()),
        }
    }

    /// Calls the tool a model named `name`. A name outside `profile` is refused without
    /// reaching any server, whatever the model was shown. Every failure is an error output
    /// for the model; the host stays usable. A server's question to the user during the
    /// call is declined (while planning, the output says so).
    pub async fn call(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        name: &str,
        arguments: Value,
        cancel: &CancellationToken,
    ) -> ToolOutput {
        self.call_asking(profile, workspace, name, arguments, cancel, None).await
    }

    /// [`McpHost::call`], where a server's `elicitation/create` during an execution call
    /// goes to `asker` (the chat's question card). While planning every question is
    /// declined, whatever `asker` is, and the planner is told.
    pub async fn call_asking(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        name: &str,
        arguments: Value,
        cancel: &CancellationToken,
        asker: Option<Arc<dyn Asker>>,
    ) -> ToolOutput {
        let arguments = match arguments {
            Value::Object(map) => Some(map),
            Value::Null => None,
            _ => {
                return ToolOutput::error(format!(
                    "the arguments of `{name}` must be a JSON object"
                ))
            }
        };
        let planning = (profile == Profile::Planning).then(|| Arc::new(Decliner::default()));
        let asker = match &planning {
            Some(decliner) => Some(Arc::clone(decliner) as Arc<dyn Asker>),
            None => asker,
        };
        let limit = self.options.max_result_bytes;
        let callee = Callee::Named(name);
        let mut output =
            match self.dispatch(profile, workspace, callee, arguments, cancel, asker).await {
                // The sandbox's text already holds its run (exit code, streams, timeout): its
                // structured copy would double every output in the model's context.
                Ok((mut result, ServerClass::CodeSandbox)) => {
                    result.structured_content = None;
                    to_tool_output(&result, limit, name)
                }
                Ok((result, _)) => to_tool_output(&result, limit, name),
                Err(output) => output,
            };
        if let Some(note) = planning.and_then(|decliner| decliner.note()) {
            output.content.push_str(&note);
        }
        output
    }

    /// Runs `command` in the chat's code sandbox (`run_command` of the execution profile's
    /// code-sandbox server, DESIGN §11): how Preflight runs a gate itself. An error is the
    /// text to show: no sandbox in this chat, a server that failed, a result without the
    /// structured fields of a run.
    pub async fn run_in_sandbox(
        &self,
        workspace: &Path,
        command: &str,
        timeout_s: u64,
        cancel: &CancellationToken,
    ) -> Result<SandboxRun, SandboxCallError> {
        let arguments = serde_json::json!({"command": command, "timeout_s": timeout_s});
        let Value::Object(arguments) = arguments else { unreachable!("a JSON object") };
        let result = self.call_sandbox("run_command", Some(arguments), workspace, cancel).await?;
        SandboxRun::from_result(&result)
    }

    /// The code sandbox's own account of itself (`sandbox_info`): its text and its
    /// structured facts (`confined`, `confinement`, python, venv, packages).
    pub async fn sandbox_info(
        &self,
        workspace: &Path,
        cancel: &CancellationToken,
    ) -> Result<(String, Value), SandboxCallError> {
        let mut result = self.call_sandbox("sandbox_info", None, workspace, cancel).await?;
        let structured = result.structured_content.take().unwrap_or(Value::Null);
        let text = to_tool_output(&result, self.options.max_result_bytes, "sandbox_info").content;
        Ok((text, structured))
    }

    async fn call_sandbox(
        &self,
        tool: &'static str,
        arguments: Option<JsonObject>,
        workspace: &Path,
        cancel: &CancellationToken,
    ) -> Result<CallToolResult, SandboxCallError> {
        let callee = Callee::Sandbox(tool);
        match self
            .dispatch(Profile::Execution, Some(workspace), callee, arguments, cancel, None)
            .await
        {
            Ok((result, _)) if result.is_error == Some(true) => {
                let limit = self.options.max_result_bytes;
                Err(SandboxCallError::Failed(to_tool_output(&result, limit, tool).content))
            }
            Ok((result, _)) => Ok(result),
            // No sandbox in this chat, a server that did not start, a failed call.
            Err(output) => Err(SandboxCallError::Failed(output.content)),
        }
    }

    /// Reads `mcp.json` again. On an error nothing changes; otherwise servers whose entry
    /// changed or went are stopped, and new ones start on first use.
    pub async fn reload(&self) -> Result<(), McpError> {
        let servers = load_servers(&self.options)?;
        if let Ok(mut infos) = self.servers.write() {
            *infos = describe(&servers);
        }
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
    /// `shutdown_grace`) and the connections task. Later calls answer `McpError::Stopped`.
    pub async fn shutdown(&self) {
        let (reply, answer) = oneshot::channel();
        if self.send(Request::Shutdown { reply }).await.is_ok() {
            let _ = answer.await;
        }
    }

    async fn dispatch(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        callee: Callee<'_>,
        arguments: Option<JsonObject>,
        cancel: &CancellationToken,
        asker: Option<Arc<dyn Asker>>,
    ) -> Result<(CallToolResult, ServerClass), ToolOutput> {
        let name = callee.name();
        let mut retried = false;
        loop {
            // A server may be starting (up to the start timeout): a stop must not wait for it.
            let view = tokio::select! {
                view = self.view(profile, workspace, !retried) => view.map_err(|e| ToolOutput::error(e.to_string()))?,
                () = cancel.cancelled() => return Err(ToolOutput::error(format!("`{name}` was cancelled"))),
            };
            let (live, tool) = match callee {
                Callee::Named(name) => view.resolve(name).ok_or_else(|| view.refusal(name))?,
                Callee::Sandbox(tool) => view.sandbox_tool(tool).map_err(ToolOutput::error)?,
            };
            let allowed = self.unconfined_allowed();
            let (class, server) = (live.class, &live.key.server);
            if let Some(why) = refused_unconfined(class, server, &live.confinement, allowed) {
                return Err(ToolOutput::error(why));
            }
            if let Some(why) = refused_write(live.class, tool, arguments.as_ref(), workspace) {
                return Err(ToolOutput::error(why));
            }
            let timeout = call_timeout(self.options.call_timeout, live.class, arguments.as_ref());
            let registration = asker.clone().map(|asker| live.askers.register(asker));
            let outcome =
                call_tool(live, tool, asker.as_ref(), arguments.clone(), timeout, cancel).await;
            drop(registration);
            match outcome {
                Ok(result) => return Ok((result, live.class)),
                Err(CallFailure::NotSent) if !retried => {
                    // The server died before our request reached it: a new one may take it.
                    self.report_dead(live).await;
                    retried = true;
                }
                Err(failure) => {
                    if let CallFailure::SignIn { challenge, .. } = &failure {
                        self.sign_ins.note_challenge(&live.key.server, challenge);
                    }
                    if matches!(failure, CallFailure::NotSent | CallFailure::Lost) {
                        self.report_dead(live).await;
                    }
                    return Err(describe_failure(failure, name, &live.key.server));
                }
            }
        }
    }

    /// The turn's view. The connections task's keys are canonical paths, so a workspace given
    /// in exactly that form finds its published view without being resolved again; anything
    /// else, or a caller that just reported a dead server (`published: false`: the task may
    /// not have unpublished it yet), is resolved and goes through the connections task.
    pub(crate) async fn view(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        published: bool,
    ) -> Result<Arc<TurnView>, McpError> {
        if published {
            if let Some(view) = self.published_view(profile, &workspace.map(Path::to_path_buf)) {
                return Ok(view);
            }
        }
        let workspace = canonical_workspace(workspace)?;
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

    /// The connections task's view for this turn, if it published one and its servers look
    /// alive.
    fn published_view(
        &self,
        profile: Profile,
        workspace: &Option<PathBuf>,
    ) -> Option<Arc<TurnView>> {
        let view = self.views.borrow().get(workspace)?[profile_index(profile)].clone()?;
        view.is_open().then_some(view)
    }

    async fn report_dead(&self, live: &Live) {
        let _ =
            self.send(Request::Dead { key: live.key.clone(), generation: live.generation }).await;
    }

    pub(crate) async fn send(&self, request: Request) -> Result<(), McpError> {
        self.requests.send(request).await.map_err(|_| McpError::Stopped)
    }

    pub fn options(&self) -> &McpOptions {
        &self.options
    }

    pub(crate) fn base(&self) -> &Arc<BaseEnvironment> {
        &self.base
    }

    pub(crate) fn sign_ins(&self) -> &SignIns {
        &self.sign_ins
    }
}

/// What a dispatch calls: a tool by the name a model was shown, or a tool of the chat's
/// code sandbox (what the engine itself runs: gates, `sandbox_info`).
#[derive(Clone, Copy)]
enum Callee<'a> {
    Named(&'a str),
    Sandbox(&'static str),
}

impl Callee<'_> {
    fn name(&self) -> &str {
        match self {
            Callee::Named(name) | Callee::Sandbox(name) => name,
        }
    }
}

/// How long one call may take: the host's limit, or for the code sandbox the run's own
/// `timeout_s` (default 120 s) and 30 s more, so the sandbox reports its own timeout.
fn call_timeout(limit: Duration, class: ServerClass, arguments: Option<&JsonObject>) -> Duration {
    if class != ServerClass::CodeSandbox {
        return limit;
    }
    let asked = arguments.and_then(|a| a.get("timeout_s")).and_then(Value::as_u64);
    let run = Duration::from_secs(asked.unwrap_or(120).clamp(1, 1800) + 30);
    limit.max(run)
}

/// The servers' infos, each logged on one line.
fn describe(servers: &[ServerEntry]) -> Vec<ServerInfo> {
    let infos: Vec<ServerInfo> = servers.iter().map(ServerInfo::from).collect();
    for info in &infos {
        tracing::info!(server = %info.name, class = ?info.class, program = %info.program, "MCP server configured");
    }
    infos
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
        CallFailure::Refused(message) | CallFailure::Unexpected(message) => {
            format!("`{name}` failed: {message}")
        }
        CallFailure::SignIn { message, .. } => format!(
            "`{name}` failed: {message}; the user has to sign in to MCP server `{server}` \
             (Settings → MCP servers → Sign in) before it can be used"
        ),
    })
}

fn human(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else {
        format!("{} s", duration.as_secs_f64())
    }
}
