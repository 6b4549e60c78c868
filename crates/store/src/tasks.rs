//! The `task_lists` table: a chat's `turn_plan` task list, always written whole.

use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::TaskList;
use rusqlite::{params, OptionalExtension};

use super::codec::from_json;
use super::codec::to_json;
use super::error::StoreError;
use super::{Store, Tx};

const TABLE: &str = "task_lists";

impl Tx<'_> {
    /// The chat's task list; empty when it has none.
    pub fn task_list(&self, chat_id: &ChatId) -> Result<TaskList, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT list FROM task_lists WHERE chat_id = ?1";
        let json: Option<String> =
            self.sql.query_row(sql, [chat_id], |row| row.get(0)).optional()?;
        Ok(match json {
            Some(json) => from_json(&json, TABLE, chat_id)?,
            None => TaskList::default(),
        })
    }

    /// Replaces the chat's task list. A list without tasks is no list: its row is deleted,
    /// so "no plan" has one representation.
    pub fn save_task_list(&mut self, chat_id: &ChatId, list: &TaskList) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        if list.tasks.is_empty() {
            self.delete_task_list(chat_id)?;
            return Ok(());
        }
        self.sql.execute(
            "INSERT INTO task_lists (chat_id, list) VALUES (?1, ?2)
             ON CONFLICT (chat_id) DO UPDATE SET list = excluded.list",
            params![chat_id, to_json(list)?],
        )?;
        Ok(())
    }

    /// Deletes the chat's task list; false if it had none.
    pub fn delete_task_list(&mut self, chat_id: &ChatId) -> Result<bool, StoreError> {
        Ok(self.sql.execute("DELETE FROM task_lists WHERE chat_id = ?1", [chat_id])? == 1)
    }
}

impl Store {
    /// The chat's task list; empty when it has none.
    pub fn task_list(&self, chat_id: &ChatId) -> Result<TaskList, StoreError> {
        self.read(|tx| tx.task_list(chat_id))
    }

    /// Replaces the chat's task list (a `turn_plan` operation's result).
    pub fn save_task_list(&self, chat_id: &ChatId, list: &TaskList) -> Result<(), StoreError> {
        self.write(|tx| tx.save_task_list(chat_id, list))
    }

    /// `DELETE /v1/chats/{id}/plan`: drops the task list; false if there was none.
    /// Deletes the chat's task list (the user cleared it): a stop it showed goes with it.
    pub fn delete_task_list(&self, chat_id: &ChatId) -> Result<bool, StoreError> {
        self.write(|tx| {
            tx.clear_current_stop(chat_id)?;
            tx.delete_task_list(chat_id)
        })
    }
}
