//! The seam of the user's hooks (DESIGN §17) in a turn: asked before each tool call (which it
//! may block, with a reason the model reads as the call's error result), told after it, and
//! told before earlier rounds are summarised. The engine implements it (`hooks/`); a turn
//! without hooks has none, and pays nothing.

use preflight_protocol::chat::ToolCall;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tool::ToolOutput;

use crate::registry::{OfferedTools, ToolContext};

/// What the hooks said of a call about to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HookVerdict {
    Allow,
    /// The call is not run; the model reads `reason` as its error result.
    Block(String),
}

/// The user's hooks around a turn's tool calls.
#[async_trait::async_trait]
pub trait ToolHooks: Send + Sync {
    /// Before `call` runs (`PreToolUse`).
    async fn before(&self, chat_id: &ChatId, call: &ToolCall) -> HookVerdict;
    /// After `call` ran with `output` (`PostToolUse`): told, never asked.
    async fn after(&self, chat_id: &ChatId, call: &ToolCall, output: &ToolOutput);
    /// Before `messages` earlier messages are summarised (`PreCompact`): told, never asked.
    async fn compacting(&self, chat_id: &ChatId, messages: usize);
}

/// Runs `call` through `tools`, asking `hooks` first and telling them after.
pub(crate) async fn hooked_dispatch(
    hooks: Option<&dyn ToolHooks>,
    tools: &OfferedTools,
    call: &ToolCall,
    context: &ToolContext<'_>,
) -> ToolOutput {
    let Some(hooks) = hooks else { return tools.dispatch(call, context).await };
    if let HookVerdict::Block(reason) = hooks.before(context.chat_id, call).await {
        return ToolOutput::error(format!("blocked by the user's PreToolUse hook: {reason}"));
    }
    let output = tools.dispatch(call, context).await;
    hooks.after(context.chat_id, call, &output).await;
    output
}
