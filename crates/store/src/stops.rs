//! `chat_state.stops`: a chat's log of executor stops and continues since its plan was
//! approved (`StopLog`), and the steps that write it: a turn that ends with tasks left, a
//! Continue, a new task list. The current stop is `state.stopped`. Beside it,
//! `chat_state.plans_again`: planning was cancelled, so the next message plans.

use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ExecutorStop, StopLog};
use rusqlite::{params, OptionalExtension};

use super::codec::{from_json, to_json};
use super::error::StoreError;
use super::{Store, Tx};

impl Tx<'_> {
    /// The chat's log; empty when it has none.
    pub fn stop_log(&self, chat_id: &ChatId) -> Result<StopLog, StoreError> {
        let sql = "SELECT stops FROM chat_state WHERE chat_id = ?1";
        let json: Option<Option<String>> =
            self.sql.query_row(sql, [chat_id], |row| row.get(0)).optional()?;
        match json.flatten() {
            Some(json) => from_json(&json, "chat_state", chat_id),
            None => Ok(StopLog::default()),
        }
    }

    pub(super) fn set_stop_log(
        &mut self,
        chat_id: &ChatId,
        log: &StopLog,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        let json = (log != &StopLog::default()).then(|| to_json(log)).transpose()?;
        let sql = "UPDATE chat_state SET stops = ?2 WHERE chat_id = ?1";
        self.sql.execute(sql, params![chat_id, json])?;
        Ok(())
    }

    /// The work has gone on without a Continue (a message of the user's, an edit, a list
    /// cleared): the current stop no longer describes the chat.
    pub(super) fn clear_current_stop(&mut self, chat_id: &ChatId) -> Result<(), StoreError> {
        let mut log = self.stop_log(chat_id)?;
        if log.current.take().is_some() {
            self.set_stop_log(chat_id, &log)?;
        }
        Ok(())
    }

    /// An executor turn ended with tasks left: `stop` is current and recorded.
    pub fn record_stop(&mut self, chat_id: &ChatId, stop: &ExecutorStop) -> Result<(), StoreError> {
        let log = self.stop_log(chat_id)?.stopped(stop.clone());
        self.set_stop_log(chat_id, &log)
    }
}

impl Tx<'_> {
    /// Whether the chat's next message plans again (its planning was cancelled).
    pub fn plans_again(&self, chat_id: &ChatId) -> Result<bool, StoreError> {
        let sql = "SELECT plans_again FROM chat_state WHERE chat_id = ?1";
        let flag: Option<bool> = self.sql.query_row(sql, [chat_id], |row| row.get(0)).optional()?;
        match flag {
            Some(flag) => Ok(flag),
            None => self.require_chat(chat_id).map(|()| false),
        }
    }

    pub(super) fn set_plans_again(&mut self, chat_id: &ChatId, on: bool) -> Result<(), StoreError> {
        let sql = "UPDATE chat_state SET plans_again = ?2 WHERE chat_id = ?1";
        self.sql.execute(sql, params![chat_id, on])?;
        Ok(())
    }
}

impl Store {
    /// See [`Tx::stop_log`].
    pub fn stop_log(&self, chat_id: &ChatId) -> Result<StopLog, StoreError> {
        self.read(|tx| tx.stop_log(chat_id))
    }

    /// See [`Tx::record_stop`].
    pub fn record_stop(&self, chat_id: &ChatId, stop: &ExecutorStop) -> Result<(), StoreError> {
        self.write(|tx| tx.record_stop(chat_id, stop))
    }
}
