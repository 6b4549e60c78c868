//! The tools of one turn: the built-in ones and the MCP tools its profile lets it see, in
//! the chat's workspace, with the chat's gates and the chat as the asker of servers'
//! questions. Built for the planner and the executor alike; it decides nothing about turns.

use std::path::PathBuf;
use std::sync::Arc;

use preflight_agent::checkpoints::CheckpointLink;
use preflight_agent::events::Event;
use preflight_agent::skills::{load_skills, SkillSet, SkillTool};
use preflight_agent::{
    Availability, EventSink, ImageLoader, OfferedTools, PlanStatusTool, ReadAttachmentTool,
    ToolRegistry, ToolSource, TurnPlanTool, TurnScope,
};
use preflight_llm::Provider;
use preflight_mcp::server_prefix;
use preflight_mcp::{McpError, McpHost, Profile, ServerClass, CODE_SANDBOX};
use preflight_protocol::chat::{Message, MessageBody};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::attachments::{attachments_dir, chat_attachments};
use crate::lifecycle::engine::Inner;
use crate::lifecycle::gates::SandboxGates;
use crate::lifecycle::hub::Hub;
use crate::lifecycle::open_questions::{ChatAsker, Elicitations};
use crate::lifecycle::runner::scope_guard::PlanningScope;

/// A chat's events as the agent loop's sink.
pub(super) struct ChatEvents {
    pub(super) hub: Arc<Hub>,
    pub(super) chat_id: ChatId,
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
    chat: (Arc<Elicitations>, Arc<Hub>, ChatId),
    /// Set when the chat may not run code now (unconfined without the user's choice): every
    /// call of the code sandbox gets this refusal, and nothing runs.
    code_refused: Option<String>,
    /// While planning in a chat with a scope: the scope, and the tool-name prefixes of the
    /// filesystem servers whose calls it judges.
    scope: Option<(PlanningScope, Vec<String>)>,
}

#[async_trait::async_trait]
impl ToolSource for ProfileTools {
    async fn tools(&self) -> Vec<ToolSpec> {
        self.tools.clone()
    }

    async fn call(&self, name: &str, arguments: Value, cancel: &CancellationToken) -> ToolOutput {
        if let Some(refusal) = &self.code_refused {
            if name.starts_with(&server_prefix(CODE_SANDBOX)) {
                return ToolOutput::error(refusal.clone());
            }
        }
        if let Some((scope, prefixes)) = &self.scope {
            let tool = prefixes.iter().find_map(|prefix| name.strip_prefix(prefix.as_str()));
            if let Some(refusal) = tool.and_then(|tool| scope.refusal(tool, &arguments)) {
                return ToolOutput::error(refusal);
            }
        }
        let (elicitations, hub, chat_id) = &self.chat;
        let asker = ChatAsker {
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

/// The scope a planner turn judges its filesystem calls by, with the name prefixes of the
/// filesystem servers (DESIGN §14); `None` without a scope.
fn planning_scope(
    inner: &Inner,
    workspace: &std::path::Path,
    scope: &[String],
) -> Option<(PlanningScope, Vec<String>)> {
    let scope = PlanningScope::new(workspace, scope)?;
    Some((scope, class_prefixes(inner, ServerClass::Filesystem)))
}

/// The tool-name prefixes (`mcp_<server>_`) of the configured servers of `class`.
pub(super) fn class_prefixes(inner: &Inner, class: ServerClass) -> Vec<String> {
    let servers = inner.mcp.servers().into_iter().filter(|server| server.class == class);
    servers.map(|server| server_prefix(&server.name)).collect()
}

/// The MCP tools `profile` offers in `workspace`; a server that cannot start is left out,
/// and one that is not installed or needs a sign-in is told to the chat.
async fn turn_mcp_tools(
    inner: &Inner,
    chat_id: &ChatId,
    profile: Profile,
    workspace: Option<&std::path::Path>,
) -> Vec<ToolSpec> {
    match inner.mcp.tools(profile, workspace).await {
        Ok(set) => {
            for missing in &set.unavailable {
                tracing::warn!(server = %missing.server, error = %missing.error, "an MCP server is unavailable");
                let code = match missing.error {
                    McpError::NotInstalled { .. } => ErrorCode::McpNotInstalled,
                    McpError::SignInRequired { .. } => ErrorCode::McpSignIn,
                    McpError::Unconfinable { .. } => ErrorCode::Unconfined,
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
    }
}

/// What shows the chat's images (its attachments folder's) to `provider`'s model, if it
/// sees images at all.
pub(super) fn image_loader(
    inner: &Inner,
    chat_id: &ChatId,
    provider: &dyn Provider,
) -> ImageLoader {
    ImageLoader::for_model(attachments_dir(&inner.home, chat_id), provider.sees_images())
}

/// The registry of one turn: built-in tools (gated to the executor; `turn_plan` saying its
/// changes on the chats' work stream, under the `.dwp` rules when `plan_folder_rules`) and
/// the MCP tools of `profile` in the chat's workspace. A server that cannot start leaves its
/// tools out.
pub(super) async fn turn_registry(
    inner: &Inner,
    chat_id: &ChatId,
    profile: Profile,
    workspace: Option<&str>,
    plan_folder_rules: bool,
) -> ToolRegistry {
    let workspace = workspace.map(PathBuf::from);
    let tools = turn_mcp_tools(inner, chat_id, profile, workspace.as_deref()).await;
    let mut turn_plan = TurnPlanTool::new(Arc::clone(&inner.store))
        .with_work(inner.work.clone())
        .with_plan_folder_rules(plan_folder_rules);
    let chat = inner.store.get_chat(chat_id).ok();
    turn_plan = turn_plan.with_auto_approve(chat.as_ref().is_some_and(|chat| chat.auto_approve));
    let (code_refused, host) = inner.sandboxes.code(chat_id);
    if let Some(link) = CheckpointLink::for_chat(&inner.store, &inner.home, chat_id) {
        turn_plan = turn_plan.with_checkpoints(link);
    }
    if let Some(folder) = &workspace {
        let refused = code_refused.clone();
        let gates = SandboxGates { host: host.clone(), workspace: folder.clone(), refused };
        turn_plan = turn_plan.with_gates(Arc::new(gates));
    }
    let plan_mode = chat.as_ref().is_some_and(|chat| chat.plan_mode);
    let scope = match (profile, &workspace, &chat) {
        (Profile::Planning, Some(folder), Some(chat)) => planning_scope(inner, folder, &chat.scope),
        _ => None,
    };
    let chat = (Arc::clone(&inner.elicitations), Arc::clone(&inner.hub), chat_id.clone());
    let source = ProfileTools { host, profile, workspace, tools, chat, code_refused, scope };
    let mut registry = ToolRegistry::with_turn_plan(turn_plan);
    if plan_mode {
        registry
            .register(Arc::new(PlanStatusTool::new(Arc::clone(&inner.store))), Availability::BOTH);
    }
    let attachments = inner
        .store
        .messages(chat_id)
        .map(|messages| chat_attachments(&messages))
        .unwrap_or_default();
    if !attachments.is_empty() {
        let dir = attachments_dir(&inner.home, chat_id);
        let tool = ReadAttachmentTool::new(dir, attachments);
        registry.register(Arc::new(tool), Availability::BOTH);
    }
    registry.register_source(Arc::new(source), Availability::BOTH);
    registry
}

/// The skills of a chat in `workspace`: the user's own (`$PREFLIGHT_HOME/skills/`) and the
/// workspace's (DESIGN §17).
pub(crate) async fn chat_skills(inner: &Inner, workspace: Option<&str>) -> SkillSet {
    load_skills(workspace.map(str::to_owned), inner.home.join("skills")).await
}

/// [`turn_registry`] with the `skill` tool when the chat has skills (for both agents), and
/// those skills, which the turn's system prompt lists.
pub(super) async fn registry_with_skills(
    inner: &Inner,
    chat_id: &ChatId,
    profile: Profile,
    workspace: Option<&str>,
    plan_folder_rules: bool,
) -> (ToolRegistry, SkillSet) {
    let mut registry = turn_registry(inner, chat_id, profile, workspace, plan_folder_rules).await;
    let skills = chat_skills(inner, workspace).await;
    if !skills.is_empty() {
        registry.register(Arc::new(SkillTool::new(&skills)), Availability::BOTH);
    }
    (registry, skills)
}

/// The tools of a turn in `scope`, with tool search where the MCP tools' definitions take
/// more than the user's share (`[mcp] tool_budget`) of a `window`-token context: the tools
/// the chat used most recently stay shown (DESIGN §17).
pub(crate) async fn offer_tools(
    inner: &Inner,
    registry: &ToolRegistry,
    scope: &TurnScope,
    window: u32,
    messages: &[Message],
) -> OfferedTools {
    let limit = inner.tool_settings.limit(window);
    registry.offer(scope).await.with_tool_search(limit, &recent_tools(messages))
}

/// The MCP tools the chat's messages called, most recent first, each once (Preflight's own
/// tools are always shown, so they take no place among the recent ones).
pub(crate) fn recent_tools(messages: &[Message]) -> Vec<String> {
    let mut recent: Vec<String> = Vec::new();
    for message in messages.iter().rev() {
        let MessageBody::Assistant { tool_calls, .. } = &message.body else { continue };
        for call in tool_calls.iter().rev() {
            if call.name.starts_with("mcp_") && !recent.contains(&call.name) {
                recent.push(call.name.clone());
            }
        }
    }
    recent
}
