//! Changes to a chat's own settings after it was created: its title (the sidebar's rename),
//! its workspace folder (the window's folder picker supplies the path), its plan-mode
//! switches and its models (`PATCH /v1/chats/{id}`; the models' rules are
//! `model_switch.rs`'s).
//!
//! **Invariant:** like every user action, a refused change changes nothing: every field of
//! a patch is checked before the one write; the workspace never changes under a running
//! turn (its tools are rooted there).

use preflight_protocol::chat::{Chat, ChatSettings, ModelChoice};
use preflight_protocol::ids::ChatId;
use serde::{Deserialize, Deserializer};

use crate::lifecycle::chat_input::{
    checked_scope, checked_title, checked_workspace, is_git_repository,
};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;

/// `PATCH /v1/chats/{id}`: the fields to change; absent ones stay. `workspace: null`
/// clears the folder.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct ChatPatch {
    // Not blank; at most `MAX_TITLE_CHARS` (200) characters.
    #[cfg_attr(feature = "openapi", schema(max_length = 200, pattern = r"\S"))]
    pub title: Option<String>,
    // An existing folder; `null` clears it.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub workspace: Option<Option<String>>,
    pub plan_mode: Option<bool>,
    pub auto_approve: Option<bool>,
    pub save_plans: Option<bool>,
    // Folders or files inside the workspace that planning is limited to (DESIGN §14); `[]`
    // is the whole workspace. Moving the workspace clears a scope the patch omits.
    #[cfg_attr(feature = "openapi", schema(max_items = 20))]
    pub scope: Option<Vec<String>>,
    // The executor's model (DESIGN §15); `null`: the configured default. Not while a turn
    // runs; a switch is a notice in the chat.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<ModelChoice>))]
    pub model: Option<Option<ModelChoice>>,
    // The planner's model; `null`: `[planner]`, else the configured default.
    #[serde(default, deserialize_with = "present")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<ModelChoice>))]
    pub planner_model: Option<Option<ModelChoice>>,
    // Work in a git worktree of its own (DESIGN §18); only before the chat's first message,
    // and only in a git repository.
    pub worktree: Option<bool>,
}

/// A field that is present, even as `null` (`Some(None)`), as opposed to absent (`None`).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}

impl Engine {
    /// Applies `patch` in one write. A title is trimmed and may not be empty; a workspace
    /// must be an existing folder and cannot change while a turn runs (`ERR_TURN_ACTIVE`); a
    /// chat that had no workspace takes the creation default for `save_plans` (on in a git
    /// repository) unless the patch sets it.
    pub fn update_chat(&self, chat_id: &ChatId, patch: &ChatPatch) -> Result<Chat, ApiError> {
        let title = patch.title.as_deref().map(checked_title).transpose()?;
        let workspace = match &patch.workspace {
            Some(Some(folder)) => Some(Some(checked_workspace(folder, &self.inner.home)?)),
            Some(None) => Some(None),
            None => None,
        };
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        let moves = workspace.as_ref().is_some_and(|folder| *folder != chat.workspace);
        if let Some(worktree) = chat.worktree.as_ref().filter(|_| moves) {
            return Err(ApiError::bad_request(format!(
                "this chat works in its own worktree of {}: its folder cannot change; start a \
                 new chat for another folder",
                worktree.repository
            )));
        }
        let switches = self.model_switches(&chat, patch)?;
        if (moves || !switches.is_empty()) && self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        let save_plans = match (&chat.workspace, &workspace) {
            (None, Some(Some(folder))) => is_git_repository(folder),
            _ => chat.save_plans,
        };
        let workspace = workspace.unwrap_or_else(|| chat.workspace.clone());
        let scope = match &patch.scope {
            Some(scope) => checked_scope(scope, workspace.as_deref())?,
            None if moves => Vec::new(),
            None => chat.scope.clone(),
        };
        let settings = ChatSettings {
            title: title.unwrap_or_else(|| chat.title.clone()),
            workspace,
            scope,
            plan_mode: patch.plan_mode.unwrap_or(chat.plan_mode),
            auto_approve: patch.auto_approve.unwrap_or(chat.auto_approve),
            save_plans: patch.save_plans.unwrap_or(save_plans),
        };
        if switches.is_empty() {
            return Ok(self.inner.store.update_chat(chat_id, &settings)?);
        }
        self.store_switches(&chat, &settings, switches)
    }

    /// Renames a chat (a patch of its title).
    pub fn rename_chat(&self, chat_id: &ChatId, title: &str) -> Result<Chat, ApiError> {
        self.update_chat(
            chat_id,
            &ChatPatch { title: Some(title.to_owned()), ..ChatPatch::default() },
        )
    }

    /// Sets (or, with `None`, clears) the chat's workspace folder (a patch of it).
    pub fn set_chat_workspace(
        &self,
        chat_id: &ChatId,
        workspace: Option<&str>,
    ) -> Result<Chat, ApiError> {
        self.update_chat(
            chat_id,
            &ChatPatch { workspace: Some(workspace.map(str::to_owned)), ..ChatPatch::default() },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::KeyLookup;
    use crate::lifecycle::chat_input::MAX_TITLE_CHARS;
    use crate::lifecycle::{EngineOptions, ErrorCode, NewChat};
    use preflight_mcp::McpOptions;

    async fn engine(home: &std::path::Path) -> Engine {
        let options = EngineOptions {
            home: home.to_owned(),
            mcp: McpOptions::new(home, home.join("no-filesystem-server")),
            keys: KeyLookup::new(Vec::new(), |_| None),
            local_models: None,
            program: "preflight test".to_owned(),
            home_lock: None,
        };
        Engine::open(options).await.unwrap()
    }

    #[tokio::test]
    async fn a_chat_is_renamed_and_bad_titles_change_nothing() {
        let home = tempfile::tempdir().unwrap();
        let engine = engine(home.path()).await;
        let chat = engine.create_chat(NewChat::default()).unwrap();
        let renamed = engine.rename_chat(&chat.id, "  Quarterly report  ").unwrap();
        assert_eq!(renamed.title, "Quarterly report");
        assert_eq!(engine.list_chats().unwrap()[0].title, "Quarterly report");

        let too_long = "x".repeat(MAX_TITLE_CHARS + 1);
        for bad in ["", "   ", too_long.as_str()] {
            assert_eq!(
                engine.rename_chat(&chat.id, bad).unwrap_err().code,
                ErrorCode::BadRequest,
                "{bad:?}"
            );
        }
        assert_eq!(
            engine.rename_chat(&"no-such-chat".into(), "x").unwrap_err().code,
            ErrorCode::NotFound
        );
        assert_eq!(engine.chat_view(&chat.id).unwrap().chat.title, "Quarterly report");
    }

    #[tokio::test]
    async fn a_workspace_is_set_checked_and_cleared() {
        let home = tempfile::tempdir().unwrap();
        let engine = engine(home.path()).await;
        let chat = engine.create_chat(NewChat::default()).unwrap();
        assert!(!chat.save_plans);

        let repo = tempfile::tempdir().unwrap();
        std::fs::create_dir(repo.path().join(".git")).unwrap();
        let with_slash = format!("{}/", repo.path().display());
        let set = engine.set_chat_workspace(&chat.id, Some(&with_slash)).unwrap();
        assert_eq!(
            set.workspace.as_deref(),
            Some(repo.path().to_str().unwrap()),
            "stored normalised"
        );
        assert!(set.save_plans, "a git repository gets .dwp plans by default");

        let missing = repo.path().join("missing");
        let error =
            engine.set_chat_workspace(&chat.id, Some(missing.to_str().unwrap())).unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
        assert_eq!(
            engine.chat_view(&chat.id).unwrap().chat.workspace,
            set.workspace,
            "a refusal changes nothing"
        );

        let cleared = engine.set_chat_workspace(&chat.id, None).unwrap();
        assert_eq!(
            (cleared.workspace, cleared.save_plans),
            (None, true),
            "save_plans stays the chat's choice"
        );
    }

    #[tokio::test]
    async fn a_patch_changes_the_switches_and_a_bad_field_changes_nothing() {
        let home = tempfile::tempdir().unwrap();
        let engine = engine(home.path()).await;
        let chat = engine.create_chat(NewChat::default()).unwrap();
        assert!(chat.plan_mode && !chat.auto_approve);

        let patch: ChatPatch =
            serde_json::from_str(r#"{"plan_mode": false, "auto_approve": true}"#).unwrap();
        let patched = engine.update_chat(&chat.id, &patch).unwrap();
        assert_eq!(
            (patched.plan_mode, patched.auto_approve, patched.title.as_str()),
            (false, true, chat.title.as_str())
        );

        let missing = home.path().join("missing");
        let bad = ChatPatch {
            title: Some("Renamed".into()),
            plan_mode: Some(true),
            workspace: Some(Some(missing.to_string_lossy().into_owned())),
            ..ChatPatch::default()
        };
        assert_eq!(engine.update_chat(&chat.id, &bad).unwrap_err().code, ErrorCode::BadRequest);
        assert_eq!(
            engine.chat_view(&chat.id).unwrap().chat,
            patched,
            "the title and switch were not written either"
        );

        for (json, wanted) in [(r#"{"workspace": null}"#, Some(None)), ("{}", None)] {
            let patch: ChatPatch = serde_json::from_str(json).unwrap();
            assert_eq!(patch.workspace, wanted, "{json}");
        }
        assert!(serde_json::from_str::<ChatPatch>(r#"{"plan_mode": "yes"}"#).is_err());
        assert!(serde_json::from_str::<ChatPatch>(r#"{"colour": "red"}"#).is_err());
    }
}
