//! A chat's points (schema v9, DESIGN §15 "Fork"): the chat as it stood right after each
//! transaction that stored or edited one of its messages — the phase, the waiting card, the
//! stop log, the completion, the plan's revisions and changes as they stood, the last model
//! call and the task list. A fork at a message copies the point whose messages hold it; a
//! checkpoint names the point it was taken after.
//!
//! **Invariant:** points are written by [`Store::write`](crate::Store::write) as its
//! transaction commits, from what the transaction's steps stored, never by a step itself: no
//! step can forget one, and a point is the state a reader could have seen.

use std::collections::BTreeMap;

use preflight_protocol::chat::{Phase, PlanPending};
use preflight_protocol::ids::{ChangeId, ChatId, MessageId};
use preflight_protocol::planner::Approval;
use preflight_protocol::tasks::{ChangeStatus, Completion, StopLog, TaskList};
use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use super::codec::{from_json, to_json};
use super::error::StoreError;
use super::Tx;

const TABLE: &str = "chat_points";

/// What a point keeps of the chat beside its task list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointState {
    pub phase: Phase,
    pub plan_pending: Option<PlanPending>,
    #[serde(default)]
    pub plans_again: bool,
    #[serde(default)]
    pub stops: StopLog,
    pub completion: Option<Completion>,
    /// How many plan revisions there were (revisions 1 to this one), and the latest one's
    /// approval then (it changes in place when the user decides).
    pub revisions: u32,
    pub approval: Option<Approval>,
    /// Every plan change there was, with its status then.
    #[serde(default)]
    pub changes: Vec<(ChangeId, ChangeStatus)>,
    /// The `seq` of the chat's last model call then (0: none).
    #[serde(default)]
    pub model_calls: i64,
}

/// One point of a chat: the messages `first_seq..=seq` were the ones its transaction wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatPoint {
    pub id: i64,
    pub first_seq: i64,
    pub seq: i64,
    pub state: PointState,
    pub task_list: TaskList,
}

impl Tx<'_> {
    /// Writes a point for every chat whose messages this transaction stored or edited: the
    /// chat as it stands now, covering the messages from the first it wrote to its last.
    pub(super) fn record_points(&mut self) -> Result<(), StoreError> {
        let mut firsts: BTreeMap<ChatId, i64> = BTreeMap::new();
        for (chat_id, seq) in std::mem::take(&mut self.written) {
            let first = firsts.entry(chat_id).or_insert(seq);
            *first = (*first).min(seq);
        }
        for (chat_id, first) in firsts {
            let sql = "SELECT max(seq) FROM messages WHERE chat_id = ?1";
            let last: Option<i64> = self.sql.query_row(sql, [&chat_id], |row| row.get(0))?;
            let Some(last) = last else { continue };
            let state = to_json(&self.point_state(&chat_id)?)?;
            self.sql.execute(
                "INSERT INTO chat_points (chat_id, first_seq, seq, state, task_list)
                 VALUES (?1, ?2, ?3, ?4, (SELECT list FROM task_lists WHERE chat_id = ?1))
                 ON CONFLICT (chat_id, seq) DO UPDATE SET
                     first_seq = min(first_seq, excluded.first_seq),
                     state = excluded.state, task_list = excluded.task_list",
                params![chat_id, first.min(last), last, state],
            )?;
        }
        Ok(())
    }

    /// The chat's state now, as a point keeps it.
    pub fn point_state(&self, chat_id: &ChatId) -> Result<PointState, StoreError> {
        let state = self.state(chat_id)?;
        let latest = "SELECT count(*), json_extract(
                          (SELECT document FROM plan_revisions WHERE chat_id = ?1
                           ORDER BY revision DESC LIMIT 1), '$.approval')
                      FROM plan_revisions WHERE chat_id = ?1";
        let (revisions, approval): (u32, Option<String>) =
            self.sql.query_row(latest, [chat_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
        let approval = approval
            .map(|text| from_json(&format!("\"{text}\""), "plan_revisions", chat_id))
            .transpose()?;
        let calls = "SELECT coalesce(max(seq), 0) FROM model_calls WHERE chat_id = ?1";
        Ok(PointState {
            phase: state.phase,
            plan_pending: state.plan_pending,
            plans_again: self.plans_again(chat_id)?,
            stops: self.stop_log(chat_id)?,
            completion: state.completion,
            revisions,
            approval,
            changes: self.plan_changes(chat_id)?.into_iter().map(|c| (c.id, c.status)).collect(),
            model_calls: self.sql.query_row(calls, [chat_id], |row| row.get(0))?,
        })
    }

    /// Forgets the points of messages after `seq` (they were deleted).
    pub(super) fn forget_points_after(
        &mut self,
        chat_id: &ChatId,
        seq: i64,
    ) -> Result<(), StoreError> {
        let sql = "DELETE FROM chat_points WHERE chat_id = ?1 AND seq > ?2";
        self.sql.execute(sql, params![chat_id, seq])?;
        Ok(())
    }

    /// The point of the transaction that stored (or last edited) `message_id`; None when
    /// that transaction wrote none (the message is older than schema v9, or was imported
    /// with others). `NotFound` for a message that is not the chat's.
    pub fn point_of_message(
        &self,
        chat_id: &ChatId,
        message_id: &MessageId,
    ) -> Result<Option<ChatPoint>, StoreError> {
        let seq = self.message_seq(chat_id, message_id)?;
        let sql = "SELECT id, first_seq, seq, state, task_list FROM chat_points
                   WHERE chat_id = ?1 AND first_seq <= ?2 AND seq >= ?2";
        self.one_point(sql, params![chat_id, seq], chat_id)
    }

    /// The point `id` of the chat, if it has it.
    pub fn point(&self, chat_id: &ChatId, id: i64) -> Result<Option<ChatPoint>, StoreError> {
        let sql = "SELECT id, first_seq, seq, state, task_list FROM chat_points
                   WHERE chat_id = ?1 AND id = ?2";
        self.one_point(sql, params![chat_id, id], chat_id)
    }

    /// The chat's points whose messages all lie at or before `seq`, oldest first.
    pub fn points_through(&self, chat_id: &ChatId, seq: i64) -> Result<Vec<ChatPoint>, StoreError> {
        let sql = "SELECT id FROM chat_points WHERE chat_id = ?1 AND seq <= ?2 ORDER BY seq";
        let mut statement = self.sql.prepare(sql)?;
        let ids = statement.query_map(params![chat_id, seq], |row| row.get::<_, i64>(0))?;
        let ids = ids.collect::<Result<Vec<_>, _>>()?;
        let points = ids.into_iter().map(|id| self.point(chat_id, id));
        points.filter_map(Result::transpose).collect()
    }

    /// The chat's latest point, for a checkpoint to name.
    pub(super) fn latest_point_id(&self, chat_id: &ChatId) -> Result<Option<i64>, StoreError> {
        let sql = "SELECT max(id) FROM chat_points WHERE chat_id = ?1";
        Ok(self.sql.query_row(sql, [chat_id], |row| row.get(0))?)
    }

    fn one_point(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        chat_id: &ChatId,
    ) -> Result<Option<ChatPoint>, StoreError> {
        let row = self.sql.query_row(sql, params, raw_point).optional()?;
        let Some((id, first_seq, seq, state, list)) = row else { return Ok(None) };
        let row_name = format!("{chat_id}/{id}");
        Ok(Some(ChatPoint {
            id,
            first_seq,
            seq,
            state: from_json(&state, TABLE, &row_name)?,
            task_list: match list {
                Some(list) => from_json(&list, TABLE, &row_name)?,
                None => TaskList::default(),
            },
        }))
    }
}

type RawPoint = (i64, i64, i64, String, Option<String>);

fn raw_point(row: &Row<'_>) -> rusqlite::Result<RawPoint> {
    Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?, row.get(4)?))
}
