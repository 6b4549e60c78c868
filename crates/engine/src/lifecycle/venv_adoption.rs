//! "Use this environment" (DESIGN §11): the user adopts a workspace's `.sandbox/venv` that an
//! earlier Preflight made before venvs were recorded. The sandbox looks at it and records it
//! exactly as a venv it made, or refuses and changes nothing (crates/sandbox `adopt/`).
//!
//! **Invariant:** only an explicit confirmation adopts (`confirm: true`, from the window's
//! button or an API client); no turn, tool or model reaches this.

use std::path::Path;

use preflight_mcp::venv_adoption::{adopt_venv, AdoptionError};
use preflight_protocol::ids::ChatId;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::tool_views::SandboxView;

impl Engine {
    /// Adopts the chat's workspace venv when `confirmed`, and answers the sandbox as it stands
    /// afterwards. A venv that is not an earlier Preflight's is `ERR_VENV_FOREIGN` with why;
    /// no confirmation is `ERR_BAD_REQUEST`; no workspace or no Preflight sandbox (no venv to
    /// adopt) is `ERR_VENV_FOREIGN`.
    pub async fn adopt_venv(
        &self,
        chat_id: &ChatId,
        confirmed: bool,
    ) -> Result<SandboxView, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        if !confirmed {
            return Err(ApiError::bad_request(
                "adopting a venv needs the user's confirmation: send {\"confirm\": true}",
            ));
        }
        // No venv to adopt is a state of the chat, not a malformed request: a 409.
        let Some(workspace) = chat.workspace.as_deref().map(Path::new) else {
            let why = "this chat has no workspace, so there is no venv to adopt";
            return Err(ApiError::new(ErrorCode::VenvForeign, why));
        };
        let Some(sandbox) = self.inner.confinement.as_deref() else {
            let why =
                "Preflight's own code sandbox is not in use here, so there is no venv to adopt";
            return Err(ApiError::new(ErrorCode::VenvForeign, why));
        };
        let adopted =
            adopt_venv(&sandbox.program, &sandbox.env, workspace, &sandbox.state_dir).await;
        match adopted {
            Ok(()) => self.sandbox(chat_id).await,
            Err(AdoptionError::Refused(reason)) => {
                Err(ApiError::new(ErrorCode::VenvForeign, reason))
            }
            Err(failed @ AdoptionError::Failed(_)) => Err(ApiError::internal(failed.to_string())),
        }
    }
}
