//! The user's hooks in the chat lifecycle (DESIGN §17; the mechanism is `crate::hooks`):
//! `SessionStart` and `UserPromptSubmit` when a message is sent, the tool hooks a turn runs
//! with, the view and the workspaces' trust; the events heard from the chats' streams are
//! `hooks_follow.rs`'s.

use std::path::{Path, PathBuf};

use preflight_agent::ToolHooks;
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;
use serde_json::Map;

use crate::hooks::{ChatToolHooks, Decision, HookEvent, HookScene, HooksView};
use crate::lifecycle::engine::{Engine, Inner};
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::hooks_follow::tell;

/// The hooks around a turn's tool calls in `chat`; `None` when none would run.
pub(super) fn turn_hooks(inner: &Inner, chat: &Chat) -> Option<Box<dyn ToolHooks>> {
    let workspace = chat.workspace.as_deref().map(PathBuf::from);
    let hooks = ChatToolHooks::for_turn(&inner.hooks, workspace)?;
    Some(Box::new(hooks))
}

impl Engine {
    /// Before a message of the user's is stored: `SessionStart` for a chat's first (told,
    /// not awaited), then `UserPromptSubmit` with what the user typed, which may block it
    /// (`ERR_HOOK_BLOCKED`, nothing stored).
    pub(super) fn prompt_hooks(&self, chat_id: &ChatId, content: &str) -> Result<(), ApiError> {
        let hooks = &self.inner.hooks;
        let chat = self.inner.store.get_chat(chat_id)?;
        let workspace = chat.workspace.as_deref().map(Path::new);
        if !hooks.any(workspace, &[HookEvent::SessionStart, HookEvent::UserPromptSubmit]) {
            return Ok(());
        }
        let first = self.inner.store.read(|tx| tx.user_turn_count(chat_id))? == 0;
        if first && hooks.any(workspace, &[HookEvent::SessionStart]) {
            let mut fields = Map::new();
            fields.insert("source".into(), "startup".into());
            tell(hooks, HookEvent::SessionStart, "", &chat, fields);
        }
        let mut fields = Map::new();
        fields.insert("prompt".into(), content.into());
        let scene = HookScene { chat_id, workspace };
        match hooks.fire_blocking(HookEvent::UserPromptSubmit, "", scene, fields) {
            Decision::Go => Ok(()),
            Decision::Block(reason) => Err(ApiError::new(
                ErrorCode::HookBlocked,
                format!("Your UserPromptSubmit hook blocked this message: {reason}"),
            )),
        }
    }

    /// The hooks that run, the files with errors, the workspaces with a hooks file.
    pub fn hooks(&self) -> Result<HooksView, ApiError> {
        let chats = self.inner.store.list_chats()?;
        let mut folders: Vec<PathBuf> =
            chats.into_iter().filter_map(|chat| chat.workspace).map(PathBuf::from).collect();
        folders.sort();
        folders.dedup();
        Ok(self.inner.hooks.view(folders))
    }

    /// Trusts `workspace` for hooks (its `.preflight/hooks.json` runs from the next event on)
    /// or stops trusting it. `ERR_BAD_REQUEST` for a folder that is not there.
    pub fn trust_hooks(&self, workspace: &str, trusted: bool) -> Result<HooksView, ApiError> {
        let folder = Path::new(workspace);
        if !folder.is_absolute() {
            return Err(ApiError::bad_request("the workspace must be an absolute path"));
        }
        match self.inner.hooks.trust.set(folder, trusted) {
            Ok(canonical) => {
                tracing::info!(folder = %canonical.display(), trusted, "hooks trust changed")
            }
            Err(crate::hooks::HookTrustError::Write(error)) => {
                return Err(ApiError::internal(format!("cannot save the trust: {error}")))
            }
            Err(error) => return Err(ApiError::bad_request(error.to_string())),
        }
        self.hooks()
    }
}
