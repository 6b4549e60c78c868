//! The hooks around a turn's tool calls: the agent's [`ToolHooks`] over [`Hooks`].

use std::path::PathBuf;
use std::sync::Arc;

use preflight_agent::{HookVerdict, ToolHooks};
use preflight_protocol::chat::ToolCall;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tool::ToolOutput;
use serde_json::{json, Map, Value};

use super::event::HookEvent;
use super::host::{Decision, HookScene, Hooks};

/// The hooks of one turn in a chat whose workspace is `workspace`.
pub struct ChatToolHooks {
    pub hooks: Arc<Hooks>,
    pub workspace: Option<PathBuf>,
}

impl ChatToolHooks {
    /// Hooks for a turn, or `None` when no hook runs around its tools (the turn pays nothing).
    pub fn for_turn(hooks: &Arc<Hooks>, workspace: Option<PathBuf>) -> Option<ChatToolHooks> {
        let events = [HookEvent::PreToolUse, HookEvent::PostToolUse, HookEvent::PreCompact];
        hooks
            .any(workspace.as_deref(), &events)
            .then(|| ChatToolHooks { hooks: Arc::clone(hooks), workspace })
    }

    fn scene<'a>(&'a self, chat_id: &'a ChatId) -> HookScene<'a> {
        HookScene { chat_id, workspace: self.workspace.as_deref() }
    }
}

/// A call's fields as a hook reads them: its name and its arguments (as JSON when they are).
fn call_fields(call: &ToolCall) -> Map<String, Value> {
    let input = serde_json::from_str(&call.arguments)
        .unwrap_or_else(|_| Value::String(call.arguments.clone()));
    let mut fields = Map::new();
    fields.insert("tool_name".into(), call.name.clone().into());
    fields.insert("tool_input".into(), input);
    fields.insert("tool_use_id".into(), call.id.clone().into());
    fields
}

#[async_trait::async_trait]
impl ToolHooks for ChatToolHooks {
    async fn before(&self, chat_id: &ChatId, call: &ToolCall) -> HookVerdict {
        let scene = self.scene(chat_id);
        match self.hooks.fire(HookEvent::PreToolUse, &call.name, scene, call_fields(call)).await {
            Decision::Go => HookVerdict::Allow,
            Decision::Block(reason) => HookVerdict::Block(reason),
        }
    }

    async fn after(&self, chat_id: &ChatId, call: &ToolCall, output: &ToolOutput) {
        let mut fields = call_fields(call);
        let response = json!({"content": output.content, "is_error": output.is_error});
        fields.insert("tool_response".into(), response);
        self.hooks.fire(HookEvent::PostToolUse, &call.name, self.scene(chat_id), fields).await;
    }

    async fn compacting(&self, chat_id: &ChatId, messages: usize) {
        let mut fields = Map::new();
        fields.insert("trigger".into(), "auto".into());
        fields.insert("messages".into(), messages.into());
        self.hooks.fire(HookEvent::PreCompact, "", self.scene(chat_id), fields).await;
    }
}
