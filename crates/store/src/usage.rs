//! The `model_calls` table (schema version 8): one row per model call of a chat, as its
//! provider reported it (DESIGN §15). A row is written whole when the call ends; the chat's
//! deletion cascades to its rows.

use preflight_dwp::now_rfc3339;
use preflight_protocol::ids::ChatId;
use preflight_protocol::usage::{ChatUsage, ContextMeter, ModelCall, PhaseUsage, UsagePhase};
use rusqlite::{params, OptionalExtension, Row};

use super::error::StoreError;
use super::{Store, Tx};

impl Tx<'_> {
    /// Stores one model call of the chat.
    pub fn insert_model_call(
        &mut self,
        chat_id: &ChatId,
        call: &ModelCall,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        self.sql.execute(
            "INSERT INTO model_calls (chat_id, phase, provider, model, input_tokens, output_tokens,
                                      cached_input_tokens, context_window, cost_usd, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                chat_id,
                call.phase.as_str(),
                call.provider,
                call.model,
                tokens(call.input_tokens),
                tokens(call.output_tokens),
                tokens(call.cached_input_tokens),
                call.context_window,
                call.cost_usd,
                now_rfc3339()
            ],
        )?;
        Ok(())
    }

    /// The chat's model calls, oldest first.
    pub fn model_calls(&self, chat_id: &ChatId) -> Result<Vec<ModelCall>, StoreError> {
        self.model_calls_through(chat_id, i64::MAX)
    }

    /// The chat's model calls up to the one numbered `last` (a point's `model_calls`).
    pub fn model_calls_through(
        &self,
        chat_id: &ChatId,
        last: i64,
    ) -> Result<Vec<ModelCall>, StoreError> {
        let mut statement = self.sql.prepare(
            "SELECT phase, provider, model, input_tokens, output_tokens, cached_input_tokens,
                    context_window, cost_usd
             FROM model_calls WHERE chat_id = ?1 AND seq <= ?2 ORDER BY seq",
        )?;
        let rows = statement.query_map(rusqlite::params![chat_id, last], call_from_row)?;
        rows.collect::<Result<Vec<_>, _>>()?.into_iter().collect()
    }
}

impl Tx<'_> {
    /// The sums of the chat's calls, phase by phase, and the meter of its last call against
    /// `window`, added up in SQL (a long chat has thousands of calls).
    pub fn chat_usage(&self, chat_id: &ChatId, window: u32) -> Result<ChatUsage, StoreError> {
        let mut usage = ChatUsage::default();
        let mut statement = self.sql.prepare(
            "SELECT phase, count(*), sum(input_tokens), sum(output_tokens),
                    sum(cached_input_tokens), sum(cost_usd), sum(cost_usd IS NULL)
             FROM model_calls WHERE chat_id = ?1 GROUP BY phase",
        )?;
        let mut rows = statement.query([chat_id])?;
        while let Some(row) = rows.next()? {
            let phase: String = row.get(0)?;
            let count = |index: usize| -> rusqlite::Result<u64> {
                Ok(u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
            };
            let sums = PhaseUsage {
                calls: u32::try_from(count(1)?).unwrap_or(u32::MAX),
                input_tokens: count(2)?,
                output_tokens: count(3)?,
                cached_input_tokens: count(4)?,
                cost: row.get(5)?,
                unpriced_calls: u32::try_from(count(6)?).unwrap_or(u32::MAX),
            };
            match UsagePhase::parse(&phase) {
                Some(UsagePhase::Planning) => usage.planning = sums,
                Some(UsagePhase::Execution) => usage.execution = sums,
                None => {}
            }
        }
        let used: Option<i64> = self
            .sql
            .query_row(
                "SELECT input_tokens + output_tokens FROM model_calls WHERE chat_id = ?1
                 ORDER BY seq DESC LIMIT 1",
                [chat_id],
                |row| row.get(0),
            )
            .optional()?;
        let used = used.map_or(0, |used| u64::try_from(used).unwrap_or(0));
        usage.context = ContextMeter { used, window };
        Ok(usage)
    }
}

/// SQLite's integers are signed: a count past `i64::MAX` (never reported) is kept at it.
fn tokens(count: u64) -> i64 {
    i64::try_from(count).unwrap_or(i64::MAX)
}

fn call_from_row(row: &Row<'_>) -> rusqlite::Result<Result<ModelCall, StoreError>> {
    let phase: String = row.get(0)?;
    let count = |index: usize| -> rusqlite::Result<u64> {
        Ok(u64::try_from(row.get::<_, i64>(index)?).unwrap_or(0))
    };
    let Some(phase) = UsagePhase::parse(&phase) else {
        return Ok(Err(StoreError::Corrupt {
            table: "model_calls",
            row: phase.clone(),
            reason: format!("unknown phase {phase:?}"),
        }));
    };
    Ok(Ok(ModelCall {
        phase,
        provider: row.get(1)?,
        model: row.get(2)?,
        input_tokens: count(3)?,
        output_tokens: count(4)?,
        cached_input_tokens: count(5)?,
        context_window: row.get(6)?,
        cost_usd: row.get(7)?,
    }))
}

impl Store {
    pub fn record_model_call(&self, chat_id: &ChatId, call: &ModelCall) -> Result<(), StoreError> {
        self.write(|tx| tx.insert_model_call(chat_id, call))
    }

    pub fn model_calls(&self, chat_id: &ChatId) -> Result<Vec<ModelCall>, StoreError> {
        self.read(|tx| tx.model_calls(chat_id))
    }

    pub fn chat_usage(&self, chat_id: &ChatId, window: u32) -> Result<ChatUsage, StoreError> {
        self.read(|tx| tx.chat_usage(chat_id, window))
    }
}
