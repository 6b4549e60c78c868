//! The `plan_changes` table (the executor's requests to change the approved plan) and the
//! chat's completion record in `chat_state.completion` (DESIGN §12).

use preflight_protocol::ids::{ChangeId, ChatId};
use preflight_protocol::tasks::{Completion, PlanChange};
use rusqlite::{params, OptionalExtension};

use super::codec::{corrupt, from_json, to_json};
use super::error::{Entity, StoreError};
use super::{Store, Tx};

const TABLE: &str = "plan_changes";

impl Tx<'_> {
    pub fn insert_plan_change(
        &mut self,
        chat_id: &ChatId,
        change: &PlanChange,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        self.sql.execute(
            "INSERT INTO plan_changes (id, chat_id, status, change) VALUES (?1, ?2, ?3, ?4)",
            params![change.id, chat_id, change.status.as_str(), to_json(change)?],
        )?;
        Ok(())
    }

    /// Rewrites a stored change (its answer).
    pub fn update_plan_change(
        &mut self,
        chat_id: &ChatId,
        change: &PlanChange,
    ) -> Result<(), StoreError> {
        let updated = self.sql.execute(
            "UPDATE plan_changes SET status = ?3, change = ?4 WHERE chat_id = ?1 AND id = ?2",
            params![chat_id, change.id, change.status.as_str(), to_json(change)?],
        )?;
        if updated == 0 {
            return Err(change_not_found(&change.id));
        }
        Ok(())
    }

    /// The chat's change requests, oldest first.
    pub fn plan_changes(&self, chat_id: &ChatId) -> Result<Vec<PlanChange>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT id, status, change FROM plan_changes WHERE chat_id = ?1 ORDER BY seq";
        let mut statement = self.sql.prepare(sql)?;
        let rows = statement.query_map([chat_id], change_row)?;
        rows.map(|row| decode(row?)).collect()
    }

    /// One change request of the chat, or `NotFound`.
    pub fn plan_change(
        &self,
        chat_id: &ChatId,
        change_id: &ChangeId,
    ) -> Result<PlanChange, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT id, status, change FROM plan_changes WHERE chat_id = ?1 AND id = ?2";
        let row = self.sql.query_row(sql, params![chat_id, change_id], change_row).optional()?;
        row.map(decode).transpose()?.ok_or_else(|| change_not_found(change_id))
    }

    /// The chat's completion record, if its plan was completed.
    pub fn completion(&self, chat_id: &ChatId) -> Result<Option<Completion>, StoreError> {
        let sql = "SELECT completion FROM chat_state WHERE chat_id = ?1";
        let json: Option<Option<String>> =
            self.sql.query_row(sql, [chat_id], |row| row.get(0)).optional()?;
        match json.flatten() {
            Some(json) => from_json(&json, "chat_state", chat_id).map(Some),
            None => Ok(None),
        }
    }

    /// Sets (or with `None` clears) the chat's completion record.
    pub fn set_completion(
        &mut self,
        chat_id: &ChatId,
        completion: Option<&Completion>,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        let json = completion.map(to_json).transpose()?;
        let sql = "UPDATE chat_state SET completion = ?2 WHERE chat_id = ?1";
        self.sql.execute(sql, params![chat_id, json])?;
        Ok(())
    }
}

type ChangeRow = (String, String, String);

fn change_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<ChangeRow> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?))
}

/// The stored JSON, checked against the row's own `status` column.
fn decode((id, status, json): ChangeRow) -> Result<PlanChange, StoreError> {
    let change: PlanChange = from_json(&json, TABLE, &id)?;
    if change.status.as_str() != status || change.id != *id.as_str() {
        return Err(corrupt(TABLE, &id, format!("the row says {status}, the change otherwise")));
    }
    Ok(change)
}

fn change_not_found(change_id: &ChangeId) -> StoreError {
    StoreError::NotFound { entity: Entity::PlanChange, id: change_id.to_string() }
}

impl Store {
    /// The chat's change requests, oldest first.
    pub fn plan_changes(&self, chat_id: &ChatId) -> Result<Vec<PlanChange>, StoreError> {
        self.read(|tx| tx.plan_changes(chat_id))
    }
}
