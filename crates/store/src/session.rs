//! The `chat_state` table: a chat's lifecycle phase and its waiting question card.

use preflight_protocol::chat::{Phase, PlanPending};
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{Completion, ExecutorStop};
use rusqlite::{params, OptionalExtension};
use serde::{Deserialize, Serialize};

use super::codec::{corrupt, from_json, to_json};
use super::error::StoreError;
use super::{Store, Tx};

const TABLE: &str = "chat_state";

/// `state` of the chat as the API shows it: `{phase, plan_pending, plan}` (DESIGN §9).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChatState {
    pub phase: Phase,
    /// The question card that waits for answers.
    pub plan_pending: Option<PlanPending>,
    /// The current plan document: the latest revision.
    pub plan: Option<PlanDocument>,
    /// The plan's completion record, once its steps are all finished (DESIGN §12).
    #[serde(default)]
    pub completion: Option<Completion>,
    /// Why the executor's last turn ended with tasks left, until the work goes on.
    #[serde(default)]
    pub stopped: Option<ExecutorStop>,
}

impl Tx<'_> {
    pub(super) fn insert_state(&mut self, chat_id: &ChatId) -> Result<(), StoreError> {
        self.sql.execute(
            "INSERT INTO chat_state (chat_id, phase) VALUES (?1, ?2)",
            params![chat_id, Phase::Idle.as_str()],
        )?;
        Ok(())
    }

    pub fn phase(&self, chat_id: &ChatId) -> Result<Phase, StoreError> {
        Ok(self.session(chat_id)?.0)
    }

    pub fn set_phase(&mut self, chat_id: &ChatId, phase: Phase) -> Result<(), StoreError> {
        let sql = "UPDATE chat_state SET phase = ?2 WHERE chat_id = ?1";
        self.update_state(chat_id, sql, phase.as_str())
    }

    pub fn plan_pending(&self, chat_id: &ChatId) -> Result<Option<PlanPending>, StoreError> {
        Ok(self.session(chat_id)?.1)
    }

    /// Sets (or with `None` clears) the waiting question card.
    pub fn set_plan_pending(
        &mut self,
        chat_id: &ChatId,
        pending: Option<&PlanPending>,
    ) -> Result<(), StoreError> {
        let json = pending.map(to_json).transpose()?;
        let sql = "UPDATE chat_state SET plan_pending = ?2 WHERE chat_id = ?1";
        self.update_state(chat_id, sql, json)
    }

    /// Phase, waiting card and current plan, read together.
    pub fn state(&self, chat_id: &ChatId) -> Result<ChatState, StoreError> {
        let (phase, plan_pending) = self.session(chat_id)?;
        let plan = self.latest_plan(chat_id)?;
        Ok(ChatState {
            phase,
            plan_pending,
            plan,
            completion: self.completion(chat_id)?,
            stopped: self.stop_log(chat_id)?.current,
        })
    }

    fn session(&self, chat_id: &ChatId) -> Result<(Phase, Option<PlanPending>), StoreError> {
        let sql = "SELECT phase, plan_pending FROM chat_state WHERE chat_id = ?1";
        let row = self
            .sql
            .query_row(sql, [chat_id], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, Option<String>>(1)?))
            })
            .optional()?;
        let Some((phase, pending)) = row else {
            self.require_chat(chat_id)?;
            return Err(corrupt(TABLE, chat_id, "the chat has no state row"));
        };
        let phase = Phase::parse(&phase)
            .ok_or_else(|| corrupt(TABLE, chat_id, format!("unknown phase {phase:?}")))?;
        let pending = pending.map(|json| from_json(&json, TABLE, chat_id)).transpose()?;
        Ok((phase, pending))
    }

    fn update_state(
        &mut self,
        chat_id: &ChatId,
        sql: &str,
        value: impl rusqlite::ToSql,
    ) -> Result<(), StoreError> {
        if self.sql.execute(sql, params![chat_id, value])? == 0 {
            self.require_chat(chat_id)?;
            return Err(corrupt(TABLE, chat_id, "the chat has no state row"));
        }
        Ok(())
    }
}

impl Store {
    /// `{phase, plan_pending, plan}` of the chat, read in one transaction.
    pub fn state(&self, chat_id: &ChatId) -> Result<ChatState, StoreError> {
        self.read(|tx| tx.state(chat_id))
    }
}
