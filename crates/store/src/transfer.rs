//! A whole chat out and in (DESIGN §15): its messages read in order a page at a time, by
//! keyset on `seq`, for an export that streams them; and a chat written whole from an
//! export, in one transaction, for an import.

use preflight_protocol::chat::{Chat, ChatSettings, Message, ModelChoice, Phase, PlanPending};
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{Completion, PlanChange, StopLog, TaskList};
use preflight_protocol::usage::ModelCall;
use rusqlite::params;

use super::codec::to_json;
use super::error::StoreError;
use super::messages::{message_from_row, MESSAGE_COLUMNS};
use super::points::PointState;
use super::Tx;

/// Everything an import stores for one chat. Its ids are the importer's: the messages and
/// plan changes carry fresh ones, and the references between them are already made to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatImport {
    pub settings: ChatSettings,
    /// When the chat was first created (kept from the export).
    pub created_at: String,
    pub phase: Phase,
    pub plan_pending: Option<PlanPending>,
    pub plans_again: bool,
    /// Oldest first; each keeps its `created_at`.
    pub messages: Vec<Message>,
    /// Revisions 1, 2, … in order.
    pub revisions: Vec<PlanDocument>,
    /// Empty: no task list.
    pub task_list: TaskList,
    /// Oldest first.
    pub changes: Vec<PlanChange>,
    pub stops: StopLog,
    pub completion: Option<Completion>,
    pub model: Option<ModelChoice>,
    pub planner_model: Option<ModelChoice>,
    /// Oldest first.
    pub model_calls: Vec<ModelCall>,
    /// The chat as it stood at its messages (a fork copies its original's points; an
    /// export has none): each names its messages by their place in `messages`.
    pub points: Vec<ImportedPoint>,
}

/// A point of an imported chat (`points.rs`), its messages named by their place in
/// [`ChatImport::messages`] and its plan changes by their new ids.
#[derive(Debug, Clone, PartialEq)]
pub struct ImportedPoint {
    pub first: usize,
    pub last: usize,
    pub state: PointState,
    pub task_list: TaskList,
}

impl Tx<'_> {
    /// At most `limit` of the chat's messages stored after the message `after` (a `seq`;
    /// from the first when None), oldest first, each with its `seq` to read on from.
    pub fn messages_after_seq(
        &self,
        chat_id: &ChatId,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<(i64, Message)>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS}, seq FROM messages WHERE chat_id = ?1 AND seq > ?2
             ORDER BY seq LIMIT ?3"
        );
        let mut statement = self.sql.prepare(&sql)?;
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = statement.query_map(params![chat_id, after.unwrap_or(0), limit], |row| {
            let seq: i64 = row.get(5)?;
            Ok(message_from_row(row)?.map(|message| (seq, message)))
        })?;
        rows.map(|row| row?).collect()
    }

    /// Stores `import` as a new chat with a fresh id and returns it. Its plan revisions
    /// must be numbered 1, 2, … in order (`InvalidInput` otherwise); the phase and the
    /// waiting card are stored as given, so the caller settles a turn the export caught
    /// running. Composed in the caller's transaction: a refusal anywhere stores nothing.
    pub fn import_chat(&mut self, import: &ChatImport) -> Result<Chat, StoreError> {
        let chat = self.insert_chat_created(&import.settings, &import.created_at)?;
        let chat_id = &chat.id;
        let mut seqs = Vec::with_capacity(import.messages.len());
        for message in &import.messages {
            self.insert_message(chat_id, message)?;
            seqs.push(self.sql.last_insert_rowid());
        }
        self.insert_points(chat_id, &seqs, &import.points)?;
        for document in &import.revisions {
            let stored = self.put_plan_revision(chat_id, document.clone())?;
            if stored.revision != document.revision {
                let reason = format!(
                    "plan revision {} is out of order: revisions are numbered 1, 2, … oldest first",
                    document.revision
                );
                return Err(StoreError::InvalidInput { reason });
            }
        }
        self.save_task_list(chat_id, &import.task_list)?;
        for change in &import.changes {
            self.insert_plan_change(chat_id, change)?;
        }
        self.set_stop_log(chat_id, &import.stops)?;
        self.set_completion(chat_id, import.completion.as_ref())?;
        self.set_plans_again(chat_id, import.plans_again)?;
        self.set_plan_pending(chat_id, import.plan_pending.as_ref())?;
        self.set_phase(chat_id, import.phase)?;
        for call in &import.model_calls {
            self.insert_model_call(chat_id, call)?;
        }
        self.set_chat_models(chat_id, import.model.as_ref(), import.planner_model.as_ref())
    }
}

impl Tx<'_> {
    /// Stores an import's points under its messages' new `seq`s. The import itself then
    /// makes no point of its own over all its messages: only its last message gets one (the
    /// chat as imported), unless a copied point holds it already.
    fn insert_points(
        &mut self,
        chat_id: &ChatId,
        seqs: &[i64],
        points: &[ImportedPoint],
    ) -> Result<(), StoreError> {
        self.written.retain(|(chat, _)| chat != chat_id);
        for point in points {
            let (Some(first), Some(last)) = (seqs.get(point.first), seqs.get(point.last)) else {
                return Err(StoreError::invalid("an imported point names a message it lacks"));
            };
            let list = (!point.task_list.tasks.is_empty()).then(|| to_json(&point.task_list));
            self.sql.execute(
                "INSERT INTO chat_points (chat_id, first_seq, seq, state, task_list)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                params![chat_id, first, last, to_json(&point.state)?, list.transpose()?],
            )?;
        }
        if let (true, Some(last)) = (points.is_empty(), seqs.last()) {
            self.written.push((chat_id.clone(), *last));
        }
        Ok(())
    }
}
