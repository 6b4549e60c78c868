//! Runs a chat's turn in its own task: the planner (quiet, read-only profile) and the
//! executor (streaming, managed profile), and the hand-over between them (DESIGN §2).
//!
//! **Invariant:** whatever ends a turn — an answer, an error, a stop — it ends with the
//! chat in a phase where the user can act, and the turn's guard released. The planning
//! profile exists only as the argument of the planner's own tool calls.

use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::{EventSink, ToolRegistry, ToolSource};
use crate::error_code::ErrorCode;
use crate::events::Event;
use crate::ids::ChatId;
use crate::mcp::{McpHost, Profile};
use crate::tool::{ToolOutput, ToolSpec};

use super::hub::{Hub, TurnGuard, TurnKind};
use super::Inner;

mod executor;
mod planner;

/// What a turn is started to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnJob {
    /// A planner turn: the first one, after a complete card of answers, or a revision.
    Plan,
    Execute,
}

/// Starts `job` for the guard's chat in a task of its own. The guard is released when the
/// turn has settled in the store, and only then are the closing events sent (the card, the
/// phase that hands control back): a user who acts on them finds the chat free.
pub fn spawn_turn(inner: &Arc<Inner>, guard: TurnGuard, job: TurnJob) {
    let inner = Arc::clone(inner);
    tokio::spawn(async move {
        let chat_id = guard.chat_id().to_owned();
        let closing = match job {
            TurnJob::Plan => planner::run(&inner, &chat_id, &guard).await,
            TurnJob::Execute => executor::run(&inner, &chat_id, &guard.cancel).await,
        };
        drop(guard);
        for event in closing {
            inner.hub.emit(&chat_id, event);
        }
    });
}

/// Events sent after a turn has released its chat.
type Closing = Vec<Event>;

fn phase_event(phase: crate::chat::Phase) -> Event {
    Event::PlanStatus { phase, text: super::notify::phase_text(phase).to_owned() }
}

/// A chat's events as the agent loop's sink.
struct ChatEvents {
    hub: Arc<Hub>,
    chat_id: ChatId,
}

impl EventSink for ChatEvents {
    fn emit(&self, event: Event) {
        self.hub.emit(&self.chat_id, event);
    }
}

/// The MCP tools of one turn, seen through that turn's profile: what the registry offers
/// and what it dispatches. A hidden name is refused by the host itself.
struct ProfileTools {
    host: McpHost,
    profile: Profile,
    workspace: Option<PathBuf>,
    tools: Vec<ToolSpec>,
    /// Where a server's questions go during execution (`elicitations.rs`).
    chat: (Arc<super::elicitations::Elicitations>, Arc<Hub>, ChatId),
}

#[async_trait::async_trait]
impl ToolSource for ProfileTools {
    async fn tools(&self) -> Vec<ToolSpec> {
        self.tools.clone()
    }

    async fn call(&self, name: &str, arguments: Value, cancel: &CancellationToken) -> ToolOutput {
        let (elicitations, hub, chat_id) = &self.chat;
        let asker = super::elicitations::ChatAsker {
            elicitations: Arc::clone(elicitations),
            hub: Arc::clone(hub),
            chat_id: chat_id.clone(),
            cancel: cancel.clone(),
        };
        let (profile, workspace) = (self.profile, self.workspace.as_deref());
        self.host
            .call_asking(profile, workspace, name, arguments, cancel, Some(Arc::new(asker)))
            .await
    }
}

/// A chat's gates, run in the code sandbox of its workspace (DESIGN §11).
struct SandboxGates {
    host: McpHost,
    workspace: PathBuf,
}

#[async_trait::async_trait]
impl crate::agent::GateRunner for SandboxGates {
    async fn run(
        &self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<crate::mcp::SandboxRun, crate::mcp::SandboxCallError> {
        let timeout = crate::agent::GATE_TIMEOUT_S;
        self.host.run_in_sandbox(&self.workspace, command, timeout, cancel).await
    }
}

/// The registry of one turn: built-in tools (gated to the executor; `turn_plan` linked to
/// the chat's plan folder when it has one) and the MCP tools of `profile` in the chat's
/// workspace. A server that cannot start leaves its tools out.
async fn turn_registry(
    inner: &Inner,
    chat_id: &ChatId,
    profile: Profile,
    workspace: Option<&str>,
    plan_files: Option<crate::agent::PlanFilesLink>,
) -> ToolRegistry {
    let workspace = workspace.map(PathBuf::from);
    let tools = match inner.mcp.tools(profile, workspace.as_deref()).await {
        Ok(set) => {
            for missing in &set.unavailable {
                tracing::warn!(server = %missing.server, error = %missing.error, "an MCP server is unavailable");
                let code = match missing.error {
                    crate::mcp::McpError::NotInstalled { .. } => ErrorCode::McpNotInstalled,
                    crate::mcp::McpError::SignInRequired { .. } => ErrorCode::McpSignIn,
                    _ => continue,
                };
                inner.hub.emit(chat_id, Event::Error { code, message: missing.error.to_string() });
            }
            set.tools
        }
        Err(error) => {
            tracing::warn!(%error, "no MCP tools for this turn");
            Vec::new()
        }
    };
    let store = Arc::clone(&inner.store);
    let mut turn_plan = match plan_files {
        Some(link) => crate::agent::TurnPlanTool::with_plan_files(store, link),
        None => crate::agent::TurnPlanTool::new(store),
    };
    let auto_approve = inner.store.get_chat(chat_id).is_ok_and(|chat| chat.auto_approve);
    turn_plan = turn_plan.with_auto_approve(auto_approve);
    if let Some(folder) = &workspace {
        let gates = SandboxGates { host: inner.mcp.clone(), workspace: folder.clone() };
        turn_plan = turn_plan.with_gates(Arc::new(gates));
    }
    let chat = (Arc::clone(&inner.elicitations), Arc::clone(&inner.hub), chat_id.clone());
    let source = ProfileTools { host: inner.mcp.clone(), profile, workspace, tools, chat };
    let mut registry = ToolRegistry::with_turn_plan(turn_plan);
    let attachments = inner
        .store
        .messages(chat_id)
        .map(|messages| super::attachments::chat_attachments(&messages))
        .unwrap_or_default();
    if !attachments.is_empty() {
        let dir = super::attachments::attachments_dir(&inner.home, chat_id);
        let tool = crate::agent::ReadAttachmentTool::new(dir, attachments);
        registry.register(Arc::new(tool), crate::agent::Availability::BOTH);
    }
    registry.register_source(Arc::new(source), crate::agent::Availability::BOTH);
    registry
}

impl TurnGuard {
    /// Marks the chat's running turn as the executor's (after the planner handed over).
    fn hand_over_to_executor(&self) {
        self.set_kind(TurnKind::Executor);
    }
}
