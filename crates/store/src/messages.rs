//! The `messages` table: a chat's messages in order, each body stored as role, content and
//! the JSON of the role's other fields.

use preflight_protocol::chat::{Message, MessageBody};
use preflight_protocol::ids::{ChatId, MessageId};
use rusqlite::{params, OptionalExtension, Row};
use serde_json::{Map, Value};

use super::codec::{corrupt, from_json, from_value, to_json};
use super::error::StoreError;
use super::{Store, Tx};

const TABLE: &str = "messages";
pub(super) const MESSAGE_COLUMNS: &str = "id, created_at, role, content, body";

/// What a message is in the lifecycle, derived from its body and kept in the `kind` column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum MessageKind {
    /// The user's own words: a turn.
    User,
    /// A synthetic `plan_answer` message.
    Answer,
    QuestionCard,
    PlanCard,
    /// An executor round, a final answer or a notice.
    Assistant,
    Tool,
    /// A compaction record: a summary standing for earlier messages in the model's view.
    Compaction,
}

impl MessageKind {
    pub(super) fn of(body: &MessageBody) -> Result<MessageKind, StoreError> {
        Ok(match body {
            MessageBody::User { plan_answer: false, .. } => MessageKind::User,
            MessageBody::User { plan_answer: true, .. } => MessageKind::Answer,
            MessageBody::Assistant { questions: Some(_), plan: Some(_), .. } => {
                return Err(StoreError::invalid("a card carries questions or a plan, not both"))
            }
            MessageBody::Assistant { questions: Some(_), .. } => MessageKind::QuestionCard,
            MessageBody::Assistant { plan: Some(_), .. } => MessageKind::PlanCard,
            MessageBody::Assistant { .. } => MessageKind::Assistant,
            MessageBody::Tool { .. } => MessageKind::Tool,
            MessageBody::Compaction { .. } => MessageKind::Compaction,
        })
    }

    fn as_str(self) -> &'static str {
        match self {
            MessageKind::User => "user",
            MessageKind::Answer => "answer",
            MessageKind::QuestionCard => "question_card",
            MessageKind::PlanCard => "plan_card",
            MessageKind::Assistant => "assistant",
            MessageKind::Tool => "tool",
            MessageKind::Compaction => "compaction",
        }
    }
}

/// A message split into its columns.
struct Encoded {
    kind: MessageKind,
    role: String,
    content: String,
    body: String,
}

fn encode(message: &Message) -> Result<Encoded, StoreError> {
    let kind = MessageKind::of(&message.body)?;
    let Value::Object(mut fields) = serde_json::to_value(&message.body)
        .map_err(|error| StoreError::invalid(error.to_string()))?
    else {
        return Err(StoreError::invalid("a message body serialises to a JSON object"));
    };
    let role = take_string(&mut fields, "role")?;
    let content = take_string(&mut fields, "content")?;
    Ok(Encoded { kind, role, content, body: to_json(&fields)? })
}

fn take_string(fields: &mut Map<String, Value>, key: &str) -> Result<String, StoreError> {
    match fields.remove(key) {
        Some(Value::String(text)) => Ok(text),
        _ => Err(StoreError::invalid(format!("a message body has a string `{key}`"))),
    }
}

pub(super) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<Result<Message, StoreError>> {
    let id: MessageId = row.get(0)?;
    let created_at: String = row.get(1)?;
    let role: String = row.get(2)?;
    let content: String = row.get(3)?;
    let body: String = row.get(4)?;
    Ok(decode(id, created_at, role, content, &body))
}

fn decode(
    id: MessageId,
    created_at: String,
    role: String,
    content: String,
    body: &str,
) -> Result<Message, StoreError> {
    let Value::Object(mut fields) = from_json::<Value>(body, TABLE, &id)? else {
        return Err(corrupt(TABLE, &id, "the body is not a JSON object"));
    };
    fields.insert("role".into(), Value::String(role));
    fields.insert("content".into(), Value::String(content));
    let body = from_value(Value::Object(fields), TABLE, &id)?;
    Ok(Message { id, created_at, body })
}

impl Tx<'_> {
    /// Appends a message to the chat; it goes after every message stored before.
    pub fn insert_message(
        &mut self,
        chat_id: &ChatId,
        message: &Message,
    ) -> Result<(), StoreError> {
        self.require_chat(chat_id)?;
        let encoded = encode(message)?;
        self.sql.execute(
            "INSERT INTO messages (id, chat_id, role, kind, content, body, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                message.id,
                chat_id,
                encoded.role,
                encoded.kind.as_str(),
                encoded.content,
                encoded.body,
                message.created_at
            ],
        )?;
        self.written.push((chat_id.clone(), self.sql.last_insert_rowid()));
        Ok(())
    }

    /// Replaces a stored message's body (its place and `created_at` stay).
    pub fn update_message(
        &mut self,
        chat_id: &ChatId,
        message: &Message,
    ) -> Result<(), StoreError> {
        let encoded = encode(message)?;
        let changed = self.sql.execute(
            "UPDATE messages SET role = ?3, kind = ?4, content = ?5, body = ?6
             WHERE id = ?1 AND chat_id = ?2",
            params![
                message.id,
                chat_id,
                encoded.role,
                encoded.kind.as_str(),
                encoded.content,
                encoded.body
            ],
        )?;
        if changed == 0 {
            return Err(StoreError::message_not_found(&message.id));
        }
        Ok(())
    }

    pub fn message(&self, chat_id: &ChatId, message_id: &MessageId) -> Result<Message, StoreError> {
        let sql = format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE id = ?1 AND chat_id = ?2");
        let found =
            self.sql.query_row(&sql, params![message_id, chat_id], message_from_row).optional()?;
        found.ok_or_else(|| StoreError::message_not_found(message_id))?
    }

    /// The chat's messages in the order they were stored.
    pub fn messages(&self, chat_id: &ChatId) -> Result<Vec<Message>, StoreError> {
        self.require_chat(chat_id)?;
        self.select_messages("chat_id = ?1", params![chat_id])
    }

    /// The messages stored after `message_id`, in order.
    pub fn messages_after(
        &self,
        chat_id: &ChatId,
        message_id: &MessageId,
    ) -> Result<Vec<Message>, StoreError> {
        let seq = self.message_seq(chat_id, message_id)?;
        self.select_messages("chat_id = ?1 AND seq > ?2", params![chat_id, seq])
    }

    pub fn last_message(&self, chat_id: &ChatId) -> Result<Option<Message>, StoreError> {
        self.select_one("chat_id = ?1 ORDER BY seq DESC", params![chat_id])
    }

    /// The chat's first user turn: the task the chat began with.
    pub fn first_user_message(&self, chat_id: &ChatId) -> Result<Option<Message>, StoreError> {
        self.first_of_kind(chat_id, MessageKind::User)
    }

    pub(super) fn first_of_kind(
        &self,
        chat_id: &ChatId,
        kind: MessageKind,
    ) -> Result<Option<Message>, StoreError> {
        let filter = "chat_id = ?1 AND kind = ?2 ORDER BY seq";
        self.select_one(filter, params![chat_id, kind.as_str()])
    }

    pub(super) fn last_of_kind(
        &self,
        chat_id: &ChatId,
        kind: MessageKind,
    ) -> Result<Option<Message>, StoreError> {
        let filter = "chat_id = ?1 AND kind = ?2 ORDER BY seq DESC";
        self.select_one(filter, params![chat_id, kind.as_str()])
    }

    /// How many turns the user has taken; synthetic answers never count.
    pub fn user_turn_count(&self, chat_id: &ChatId) -> Result<u64, StoreError> {
        self.require_chat(chat_id)?;
        let sql = "SELECT count(*) FROM messages WHERE chat_id = ?1 AND kind = 'user'";
        let count: i64 = self.sql.query_row(sql, [chat_id], |row| row.get(0))?;
        Ok(count as u64)
    }

    /// Deletes every message stored after `message_id`; returns how many went.
    pub fn delete_messages_after(
        &mut self,
        chat_id: &ChatId,
        message_id: &MessageId,
    ) -> Result<usize, StoreError> {
        let seq = self.message_seq(chat_id, message_id)?;
        let sql = "DELETE FROM messages WHERE chat_id = ?1 AND seq > ?2";
        let deleted = self.sql.execute(sql, params![chat_id, seq])?;
        self.forget_points_after(chat_id, seq)?;
        Ok(deleted)
    }

    pub fn delete_message(
        &mut self,
        chat_id: &ChatId,
        message_id: &MessageId,
    ) -> Result<(), StoreError> {
        let sql = "DELETE FROM messages WHERE id = ?1 AND chat_id = ?2";
        match self.sql.execute(sql, params![message_id, chat_id])? {
            0 => Err(StoreError::message_not_found(message_id)),
            _ => Ok(()),
        }
    }

    pub(super) fn message_seq(
        &self,
        chat_id: &ChatId,
        message_id: &MessageId,
    ) -> Result<i64, StoreError> {
        let sql = "SELECT seq FROM messages WHERE id = ?1 AND chat_id = ?2";
        let seq =
            self.sql.query_row(sql, params![message_id, chat_id], |row| row.get(0)).optional()?;
        seq.ok_or_else(|| StoreError::message_not_found(message_id))
    }

    fn select_messages(
        &self,
        filter: &str,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<Vec<Message>, StoreError> {
        let sql = format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE {filter} ORDER BY seq");
        let mut statement = self.sql.prepare(&sql)?;
        let rows = statement.query_map(values, message_from_row)?;
        rows.map(|row| row?).collect()
    }

    fn select_one(
        &self,
        filter: &str,
        values: &[&dyn rusqlite::ToSql],
    ) -> Result<Option<Message>, StoreError> {
        let sql = format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE {filter} LIMIT 1");
        let found = self.sql.query_row(&sql, values, message_from_row).optional()?;
        found.transpose()
    }
}

impl Store {
    /// The chat's messages in the order the UI shows them.
    pub fn messages(&self, chat_id: &ChatId) -> Result<Vec<Message>, StoreError> {
        self.read(|tx| tx.messages(chat_id))
    }

    pub fn message(&self, chat_id: &ChatId, message_id: &MessageId) -> Result<Message, StoreError> {
        self.read(|tx| tx.message(chat_id, message_id))
    }

    /// How many turns the user has taken; synthetic answers never count (DESIGN §2).
    pub fn user_turn_count(&self, chat_id: &ChatId) -> Result<u64, StoreError> {
        self.read(|tx| tx.user_turn_count(chat_id))
    }
}
