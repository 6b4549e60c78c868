//! The `checkpoints` table: the record of each checkpoint Preflight took of a chat's
//! workspace (`checkpoints::Checkpoint`); the files themselves are in the shadow repository.

use preflight_protocol::chat::Message;
use preflight_protocol::checkpoints::Checkpoint;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::TaskList;
use rusqlite::{params, OptionalExtension};

use super::codec::{from_json, to_json};
use super::error::StoreError;
use super::{Store, Tx};

const TABLE: &str = "checkpoints";

impl Tx<'_> {
    /// Stores `checkpoint` under the next number; returns it as stored.
    pub fn add_checkpoint(
        &mut self,
        chat_id: &ChatId,
        mut checkpoint: Checkpoint,
    ) -> Result<Checkpoint, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT COALESCE(MAX(n), 0) + 1 FROM checkpoints WHERE chat_id = ?1";
        checkpoint.n = self.sql.query_row(sql, [chat_id], |row| row.get(0))?;
        let point = self.latest_point_id(chat_id)?;
        self.sql.execute(
            "INSERT INTO checkpoints (chat_id, n, commit_id, checkpoint, point)
             VALUES (?1, ?2, ?3, ?4, ?5)",
            params![chat_id, checkpoint.n, checkpoint.commit, to_json(&checkpoint)?, point],
        )?;
        Ok(checkpoint)
    }

    /// The point (`points.rs`) the chat stood at when checkpoint `n` was taken: None for a
    /// checkpoint taken before points were kept, or in a chat without one yet.
    pub fn checkpoint_point(&self, chat_id: &ChatId, n: u32) -> Result<Option<i64>, StoreError> {
        let sql = "SELECT point FROM checkpoints WHERE chat_id = ?1 AND n = ?2";
        let point = self.sql.query_row(sql, params![chat_id, n], |row| row.get(0)).optional()?;
        Ok(point.flatten())
    }

    /// The chat's checkpoints, oldest first.
    pub fn checkpoints(&self, chat_id: &ChatId) -> Result<Vec<Checkpoint>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT commit_id, checkpoint FROM checkpoints WHERE chat_id = ?1 ORDER BY n";
        let mut statement = self.sql.prepare(sql)?;
        let rows = statement.query_map([chat_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        rows.map(|row| decode(row?, chat_id)).collect()
    }

    /// The chat's latest checkpoint, if it has one.
    pub fn last_checkpoint(&self, chat_id: &ChatId) -> Result<Option<Checkpoint>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT commit_id, checkpoint FROM checkpoints WHERE chat_id = ?1
                   ORDER BY n DESC LIMIT 1";
        let row =
            self.sql.query_row(sql, [chat_id], |row| Ok((row.get(0)?, row.get(1)?))).optional()?;
        row.map(|row| decode(row, chat_id)).transpose()
    }

    /// The chat's checkpoint `n`, if there is one.
    pub fn checkpoint(&self, chat_id: &ChatId, n: u32) -> Result<Option<Checkpoint>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT commit_id, checkpoint FROM checkpoints WHERE chat_id = ?1 AND n = ?2";
        let row = self
            .sql
            .query_row(sql, params![chat_id, n], |row| Ok((row.get(0)?, row.get(1)?)))
            .optional()?;
        row.map(|row| decode(row, chat_id)).transpose()
    }
}

impl Tx<'_> {
    /// A restore to a checkpoint, after its files went back: the task list as it stood then
    /// (none when it had none), the completion record withdrawn when work is open again, the
    /// restore in the chat's log of stops and continues, and its entry in the chat.
    pub fn restore_tasks(
        &mut self,
        chat_id: &ChatId,
        tasks: &TaskList,
        checkpoint: u32,
        entry: &Message,
        now: &str,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        let reopened = tasks.open_ids().len();
        match tasks.tasks.is_empty() {
            true => drop(self.delete_task_list(chat_id)?),
            false => self.save_task_list(chat_id, tasks)?,
        }
        if tasks.has_work_left() {
            self.set_completion(chat_id, None)?;
        }
        let reopened = u32::try_from(reopened).unwrap_or(u32::MAX);
        let log = self.stop_log(chat_id)?.restored(checkpoint, reopened, now);
        self.set_stop_log(chat_id, &log)?;
        self.insert_message(chat_id, entry)
    }
}

/// The record with its commit, which the JSON does not carry (the API never shows it).
fn decode((commit, json): (String, String), chat_id: &ChatId) -> Result<Checkpoint, StoreError> {
    let mut checkpoint: Checkpoint = from_json(&json, TABLE, chat_id)?;
    checkpoint.commit = commit;
    Ok(checkpoint)
}

impl Store {
    /// See [`Tx::add_checkpoint`].
    pub fn add_checkpoint(
        &self,
        chat_id: &ChatId,
        checkpoint: Checkpoint,
    ) -> Result<Checkpoint, StoreError> {
        self.write(|tx| tx.add_checkpoint(chat_id, checkpoint))
    }

    /// See [`Tx::checkpoints`].
    pub fn checkpoints(&self, chat_id: &ChatId) -> Result<Vec<Checkpoint>, StoreError> {
        self.read(|tx| tx.checkpoints(chat_id))
    }

    /// See [`Tx::restore_tasks`].
    pub fn restore_tasks(
        &self,
        chat_id: &ChatId,
        tasks: &TaskList,
        checkpoint: u32,
        entry: &Message,
        now: &str,
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.restore_tasks(chat_id, tasks, checkpoint, entry, now))
    }

    /// See [`Tx::last_checkpoint`].
    pub fn last_checkpoint(&self, chat_id: &ChatId) -> Result<Option<Checkpoint>, StoreError> {
        self.read(|tx| tx.last_checkpoint(chat_id))
    }

    /// See [`Tx::checkpoint`].
    pub fn checkpoint(&self, chat_id: &ChatId, n: u32) -> Result<Option<Checkpoint>, StoreError> {
        self.read(|tx| tx.checkpoint(chat_id, n))
    }
}
