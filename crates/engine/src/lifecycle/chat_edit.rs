//! Changes to a chat's own settings after it was created: its title (the sidebar's rename)
//! and its workspace folder (the window's folder picker supplies the path).
//!
//! **Invariant:** like every user action, a refused change changes nothing; the workspace
//! never changes under a running turn (its tools are rooted there).

use crate::chat::{Chat, ChatSettings};

use super::chats::{checked_workspace, is_git_repository};
use super::error::ApiError;
use super::Engine;

/// Longest title a user may give a chat.
pub const MAX_TITLE_CHARS: usize = 200;

impl Engine {
    /// Renames a chat; the title is trimmed and may not be empty.
    pub fn rename_chat(&self, chat_id: &str, title: &str) -> Result<Chat, ApiError> {
        let title = title.trim();
        if title.is_empty() {
            return Err(ApiError::bad_request("a chat needs a title"));
        }
        if title.chars().count() > MAX_TITLE_CHARS {
            return Err(ApiError::bad_request(format!("a title has at most {MAX_TITLE_CHARS} characters")));
        }
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        Ok(self.inner.store.update_chat(chat_id, &ChatSettings { title: title.to_owned(), ..settings_of(&chat) })?)
    }

    /// Sets (or, with `None`, clears) the chat's workspace folder, which must exist. Refused
    /// with `ERR_TURN_ACTIVE` while a turn runs. A chat that had no workspace takes the
    /// creation default for `save_plans` (on in a git repository).
    pub fn set_chat_workspace(&self, chat_id: &str, workspace: Option<&str>) -> Result<Chat, ApiError> {
        let workspace = workspace.map(checked_workspace).transpose()?;
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        if self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        let save_plans = match (&chat.workspace, &workspace) {
            (None, Some(folder)) => is_git_repository(folder),
            _ => chat.save_plans,
        };
        let settings = ChatSettings { workspace, save_plans, ..settings_of(&chat) };
        Ok(self.inner.store.update_chat(chat_id, &settings)?)
    }
}

fn settings_of(chat: &Chat) -> ChatSettings {
    ChatSettings {
        title: chat.title.clone(),
        workspace: chat.workspace.clone(),
        plan_mode: chat.plan_mode,
        auto_approve: chat.auto_approve,
        save_plans: chat.save_plans,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::KeyLookup;
    use crate::lifecycle::{EngineOptions, ErrorCode, NewChat};
    use crate::mcp::McpConfig;

    async fn engine(home: &std::path::Path) -> Engine {
        let options = EngineOptions {
            home: home.to_owned(),
            mcp: McpConfig::new(home, home.join("no-filesystem-server")),
            keys: KeyLookup::new(Vec::new(), |_| None),
            local_models: None,
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
            assert_eq!(engine.rename_chat(&chat.id, bad).unwrap_err().code, ErrorCode::BadRequest, "{bad:?}");
        }
        assert_eq!(engine.rename_chat("no-such-chat", "x").unwrap_err().code, ErrorCode::NotFound);
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
        assert_eq!(set.workspace.as_deref(), Some(repo.path().to_str().unwrap()), "stored normalised");
        assert!(set.save_plans, "a git repository gets .dwp plans by default");

        let missing = repo.path().join("missing");
        let error = engine.set_chat_workspace(&chat.id, Some(missing.to_str().unwrap())).unwrap_err();
        assert_eq!(error.code, ErrorCode::BadRequest);
        assert_eq!(engine.chat_view(&chat.id).unwrap().chat.workspace, set.workspace, "a refusal changes nothing");

        let cleared = engine.set_chat_workspace(&chat.id, None).unwrap();
        assert_eq!((cleared.workspace, cleared.save_plans), (None, true), "save_plans stays the chat's choice");
    }
}
