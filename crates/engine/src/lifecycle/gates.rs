//! A chat's code as its sandbox meets it: whether it may run now (unconfined without the
//! user's choice, it may not), the host acting for the chat, and the chat's gates, run in
//! the code sandbox of its workspace (DESIGN §11). The turn's tools use it, and so does the
//! plan folder's finaliser, which runs each completed task's check again outside a turn.

use std::path::PathBuf;
use std::sync::Arc;

use preflight_agent::{GateRunner, GATE_TIMEOUT_S};
use preflight_mcp::{McpHost, SandboxCallError, SandboxRun};
use preflight_protocol::ids::ChatId;
use preflight_store::Store;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::unconfined::{refusal, unconfined_allowed, Confinement};

/// What the chats' code runs through: the store (each chat's plan and choice), the MCP host
/// and whether its sandbox confines runs here. Cheap to clone.
#[derive(Clone)]
pub(super) struct Sandboxes {
    pub(super) store: Arc<Store>,
    pub(super) mcp: McpHost,
    pub(super) confinement: Option<Arc<Confinement>>,
}

impl Sandboxes {
    /// The chat's choice on unconfined runs as its code meets it: why it may not run code
    /// now (unconfined without the user's choice), if so, and the host acting for the chat,
    /// whose code sandbox is used only if it confines runs or the user allowed them
    /// unconfined.
    pub(super) fn code(&self, chat_id: &ChatId) -> (Option<String>, McpHost) {
        let chat = self.store.get_chat(chat_id).ok();
        let plan = self.store.state(chat_id).ok().and_then(|state| state.plan);
        let confinement = self.confinement.as_deref();
        let refused = chat.and_then(|chat| refusal(confinement, &chat, plan.as_ref()));
        let consent = unconfined_allowed(confinement, plan.as_ref());
        (refused, self.mcp.with_unconfined_consent(consent))
    }

    /// The chat's gates, when it has a workspace.
    pub(super) fn gates(&self, chat_id: &ChatId) -> Option<Arc<dyn GateRunner>> {
        let workspace = PathBuf::from(self.store.get_chat(chat_id).ok()?.workspace?);
        let (refused, host) = self.code(chat_id);
        Some(Arc::new(SandboxGates { host, workspace, refused }))
    }
}

/// A chat's gates, run in the code sandbox of its workspace (DESIGN §11).
pub(super) struct SandboxGates {
    pub(super) host: McpHost,
    pub(super) workspace: PathBuf,
    /// Why the chat may not run code now: every gate is refused with it, and nothing runs.
    pub(super) refused: Option<String>,
}

#[async_trait::async_trait]
impl GateRunner for SandboxGates {
    async fn run(
        &self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<SandboxRun, SandboxCallError> {
        if let Some(refusal) = &self.refused {
            return Err(SandboxCallError::Failed(refusal.clone()));
        }
        let timeout = GATE_TIMEOUT_S;
        self.host.run_in_sandbox(&self.workspace, command, timeout, cancel).await
    }
}
