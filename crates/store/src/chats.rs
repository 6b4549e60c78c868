//! The `chats` table: create, read, list (newest first), update, delete.

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Chat, ChatSettings, ForkedFrom, ModelChoice, Worktree};
use preflight_protocol::ids::ChatId;
use rusqlite::{params, OptionalExtension, Row};

use super::error::StoreError;
use super::{Store, Tx};

pub(super) const CHAT_COLUMNS: &str = "id, title, workspace, plan_mode, auto_approve, save_plans, \
     created_at, updated_at, scope, model, planner_model, forked_from, worktree";
/// How many columns `CHAT_COLUMNS` names: a query that selects more reads them from here.
pub(super) const CHAT_COLUMN_COUNT: usize = 13;

impl Tx<'_> {
    /// Stores a new chat (with an idle session state) and returns it.
    pub fn insert_chat(&mut self, settings: &ChatSettings) -> Result<Chat, StoreError> {
        let now = now_rfc3339();
        self.insert_chat_stamped(settings, &now, &now)
    }

    /// Stores a new chat created at `created_at` (an imported chat keeps its own) and
    /// updated now, with a fresh id and an idle session state, and returns it.
    pub(super) fn insert_chat_created(
        &mut self,
        settings: &ChatSettings,
        created_at: &str,
    ) -> Result<Chat, StoreError> {
        self.insert_chat_stamped(settings, created_at, &now_rfc3339())
    }

    fn insert_chat_stamped(
        &mut self,
        settings: &ChatSettings,
        created_at: &str,
        updated_at: &str,
    ) -> Result<Chat, StoreError> {
        let chat = Chat {
            id: ChatId::new(),
            title: settings.title.clone(),
            workspace: settings.workspace.clone(),
            plan_mode: settings.plan_mode,
            auto_approve: settings.auto_approve,
            save_plans: settings.save_plans,
            scope: settings.scope.clone(),
            model: None,
            planner_model: None,
            created_at: created_at.to_owned(),
            updated_at: updated_at.to_owned(),
            forked_from: None,
            worktree: None,
        };
        self.sql.execute(
            "INSERT INTO chats (id, title, workspace, plan_mode, auto_approve, save_plans,
                                created_at, updated_at, scope)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![
                chat.id,
                chat.title,
                chat.workspace,
                chat.plan_mode,
                chat.auto_approve,
                chat.save_plans,
                chat.created_at,
                chat.updated_at,
                scope_column(&chat.scope)
            ],
        )?;
        self.insert_state(&chat.id)?;
        Ok(chat)
    }

    pub fn chat(&self, chat_id: &ChatId) -> Result<Chat, StoreError> {
        let sql = format!("SELECT {CHAT_COLUMNS} FROM chats WHERE id = ?1");
        self.sql
            .query_row(&sql, [chat_id], chat_from_row)
            .optional()?
            .ok_or_else(|| StoreError::chat_not_found(chat_id))
    }

    /// Every chat, the most recently created first.
    pub fn chats(&self) -> Result<Vec<Chat>, StoreError> {
        let sql = format!("SELECT {CHAT_COLUMNS} FROM chats ORDER BY seq DESC");
        let mut statement = self.sql.prepare(&sql)?;
        let chats = statement.query_map([], chat_from_row)?.collect::<Result<_, _>>()?;
        Ok(chats)
    }

    /// Replaces the chat's title and settings and bumps `updated_at`.
    pub fn update_chat(
        &mut self,
        chat_id: &ChatId,
        settings: &ChatSettings,
    ) -> Result<Chat, StoreError> {
        let changed = self.sql.execute(
            "UPDATE chats SET title = ?2, workspace = ?3, plan_mode = ?4, auto_approve = ?5,
                              save_plans = ?6, updated_at = ?7, scope = ?8
             WHERE id = ?1",
            params![
                chat_id,
                settings.title,
                settings.workspace,
                settings.plan_mode,
                settings.auto_approve,
                settings.save_plans,
                now_rfc3339(),
                scope_column(&settings.scope)
            ],
        )?;
        if changed == 0 {
            return Err(StoreError::chat_not_found(chat_id));
        }
        self.chat(chat_id)
    }

    /// Sets the models the chat talks to (None: the configured default) and bumps
    /// `updated_at`.
    pub fn set_chat_models(
        &mut self,
        chat_id: &ChatId,
        model: Option<&ModelChoice>,
        planner_model: Option<&ModelChoice>,
    ) -> Result<Chat, StoreError> {
        let changed = self.sql.execute(
            "UPDATE chats SET model = ?2, planner_model = ?3, updated_at = ?4 WHERE id = ?1",
            params![chat_id, choice_column(model), choice_column(planner_model), now_rfc3339()],
        )?;
        if changed == 0 {
            return Err(StoreError::chat_not_found(chat_id));
        }
        self.chat(chat_id)
    }

    /// Records where the chat was forked from.
    pub fn set_forked_from(
        &mut self,
        chat_id: &ChatId,
        forked_from: &ForkedFrom,
    ) -> Result<Chat, StoreError> {
        let column = serde_json::json!(forked_from).to_string();
        let changed = self
            .sql
            .execute("UPDATE chats SET forked_from = ?2 WHERE id = ?1", params![chat_id, column])?;
        if changed == 0 {
            return Err(StoreError::chat_not_found(chat_id));
        }
        self.chat(chat_id)
    }

    /// Sets (or with `None` clears) the chat's own worktree and, with it, its workspace:
    /// the worktree's folder while it has one, `workspace` as given otherwise.
    pub fn set_chat_worktree(
        &mut self,
        chat_id: &ChatId,
        workspace: Option<&str>,
        worktree: Option<&Worktree>,
    ) -> Result<Chat, StoreError> {
        let column = worktree.map(|worktree| serde_json::json!(worktree).to_string());
        let changed = self.sql.execute(
            "UPDATE chats SET workspace = ?2, worktree = ?3, updated_at = ?4 WHERE id = ?1",
            params![chat_id, workspace, column, now_rfc3339()],
        )?;
        if changed == 0 {
            return Err(StoreError::chat_not_found(chat_id));
        }
        self.chat(chat_id)
    }

    /// Deletes the chat and, by cascade, everything stored for it. False if there was none.
    pub fn delete_chat(&mut self, chat_id: &ChatId) -> Result<bool, StoreError> {
        Ok(self.sql.execute("DELETE FROM chats WHERE id = ?1", [chat_id])? == 1)
    }

    /// `NotFound` unless the chat exists.
    pub fn require_chat(&self, chat_id: &ChatId) -> Result<(), StoreError> {
        let found = self
            .sql
            .query_row("SELECT 1 FROM chats WHERE id = ?1", [chat_id], |_| Ok(()))
            .optional()?;
        found.ok_or_else(|| StoreError::chat_not_found(chat_id))
    }
}

pub(super) fn chat_from_row(row: &Row<'_>) -> rusqlite::Result<Chat> {
    Ok(Chat {
        id: row.get(0)?,
        title: row.get(1)?,
        workspace: row.get(2)?,
        plan_mode: row.get(3)?,
        auto_approve: row.get(4)?,
        save_plans: row.get(5)?,
        created_at: row.get(6)?,
        updated_at: row.get(7)?,
        scope: scope_from_column(row, 8)?,
        model: json_column(row, 9)?,
        planner_model: json_column(row, 10)?,
        forked_from: json_column(row, 11)?,
        worktree: json_column(row, 12)?,
    })
}

fn choice_column(choice: Option<&ModelChoice>) -> Option<String> {
    choice.map(|choice| serde_json::json!(choice).to_string())
}

/// A scope as its column holds it: JSON, NULL when empty.
fn scope_column(scope: &[String]) -> Option<String> {
    (!scope.is_empty()).then(|| serde_json::Value::from(scope.to_vec()).to_string())
}

fn scope_from_column(row: &Row<'_>, index: usize) -> rusqlite::Result<Vec<String>> {
    Ok(json_column(row, index)?.unwrap_or_default())
}

/// A column holding JSON or NULL.
fn json_column<T: serde::de::DeserializeOwned>(
    row: &Row<'_>,
    index: usize,
) -> rusqlite::Result<Option<T>> {
    let Some(text) = row.get::<_, Option<String>>(index)? else { return Ok(None) };
    serde_json::from_str(&text).map(Some).map_err(|error| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, error.into())
    })
}

impl Store {
    pub fn create_chat(&self, settings: &ChatSettings) -> Result<Chat, StoreError> {
        self.write(|tx| tx.insert_chat(settings))
    }

    pub fn get_chat(&self, chat_id: &ChatId) -> Result<Chat, StoreError> {
        self.read(|tx| tx.chat(chat_id))
    }

    /// Every chat, the most recently created first.
    pub fn list_chats(&self) -> Result<Vec<Chat>, StoreError> {
        self.read(|tx| tx.chats())
    }

    pub fn update_chat(
        &self,
        chat_id: &ChatId,
        settings: &ChatSettings,
    ) -> Result<Chat, StoreError> {
        self.write(|tx| tx.update_chat(chat_id, settings))
    }

    pub fn delete_chat(&self, chat_id: &ChatId) -> Result<bool, StoreError> {
        self.write(|tx| tx.delete_chat(chat_id))
    }

    pub fn set_chat_models(
        &self,
        chat_id: &ChatId,
        model: Option<&ModelChoice>,
        planner_model: Option<&ModelChoice>,
    ) -> Result<Chat, StoreError> {
        self.write(|tx| tx.set_chat_models(chat_id, model, planner_model))
    }
}
