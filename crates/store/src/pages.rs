//! Pages of the chat list and of a chat's messages, by keyset on `seq` (never by offset, so
//! a chat created or a message added between two pages moves nothing already read).

use preflight_protocol::chat::{Chat, Message};
use preflight_protocol::ids::{ChatId, MessageId};
use rusqlite::{params, Row};

use super::chats::{chat_from_row, CHAT_COLUMNS};
use super::error::StoreError;
use super::messages::{message_from_row, MESSAGE_COLUMNS};
use super::Tx;

/// One page of a list: its rows, and the `seq` to read the next page before (None when
/// this page ends the list).
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    pub rows: Vec<T>,
    pub next_before: Option<i64>,
}

impl Tx<'_> {
    /// At most `limit` chats created before the chat `before` (a `seq`; every chat when
    /// None), newest first.
    pub fn chat_page(&self, before: Option<i64>, limit: usize) -> Result<Page<Chat>, StoreError> {
        let sql = format!(
            "SELECT {CHAT_COLUMNS}, seq FROM chats WHERE seq < ?1 ORDER BY seq DESC LIMIT ?2"
        );
        let mut statement = self.sql.prepare(&sql)?;
        let rows = statement.query_map(params![upper(before), fetched(limit)], |row| {
            Ok((chat_from_row(row)?, row.get::<_, i64>(super::chats::CHAT_COLUMN_COUNT)?))
        })?;
        let rows = rows.collect::<Result<Vec<_>, _>>()?;
        Ok(cut(rows, limit))
    }

    /// At most `limit` of the chat's messages stored before the message `before` (a
    /// `seq`; the latest when None), oldest first: the page that ends where `before` starts.
    pub fn message_page(
        &self,
        chat_id: &ChatId,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Page<Message>, StoreError> {
        self.require_chat(chat_id)?;
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS}, seq FROM messages WHERE chat_id = ?1 AND seq < ?2
             ORDER BY seq DESC LIMIT ?3"
        );
        let mut statement = self.sql.prepare(&sql)?;
        let rows = statement
            .query_map(params![chat_id, upper(before), fetched(limit)], message_with_seq)?;
        let rows = rows.map(|row| row?).collect::<Result<Vec<_>, StoreError>>()?;
        let mut page = cut(rows, limit);
        page.rows.reverse();
        Ok(page)
    }

    /// The chat's messages from `from` (included) to the latest, oldest first, and the
    /// `seq` to read older ones before (None when `from` is the chat's first message).
    pub fn messages_from(
        &self,
        chat_id: &ChatId,
        from: &MessageId,
    ) -> Result<Page<Message>, StoreError> {
        let seq = self.message_seq(chat_id, from)?;
        let sql = format!(
            "SELECT {MESSAGE_COLUMNS}, seq FROM messages WHERE chat_id = ?1 AND seq >= ?2
             ORDER BY seq"
        );
        let mut statement = self.sql.prepare(&sql)?;
        let rows = statement.query_map(params![chat_id, seq], message_with_seq)?;
        let rows = rows.map(|row| row?).collect::<Result<Vec<_>, StoreError>>()?;
        let older = "SELECT EXISTS (SELECT 1 FROM messages WHERE chat_id = ?1 AND seq < ?2)";
        let has_older: bool = self.sql.query_row(older, params![chat_id, seq], |row| row.get(0))?;
        Ok(Page {
            rows: rows.into_iter().map(|(message, _)| message).collect(),
            next_before: has_older.then_some(seq),
        })
    }
}

fn message_with_seq(row: &Row<'_>) -> rusqlite::Result<Result<(Message, i64), StoreError>> {
    let seq: i64 = row.get(5)?;
    Ok(message_from_row(row)?.map(|message| (message, seq)))
}

/// The exclusive upper bound on `seq` for a page before `before`.
pub(super) fn upper(before: Option<i64>) -> i64 {
    before.unwrap_or(i64::MAX)
}

/// One row more than the page holds: its presence says another page follows.
pub(super) fn fetched(limit: usize) -> i64 {
    i64::try_from(limit).unwrap_or(i64::MAX - 1) + 1
}

/// The first `limit` rows (newest first) as a page; the next one starts before the last kept.
pub(super) fn cut<T>(mut rows: Vec<(T, i64)>, limit: usize) -> Page<T> {
    let more = rows.len() > limit;
    rows.truncate(limit);
    let next_before = if more { rows.last().map(|(_, seq)| *seq) } else { None };
    Page { rows: rows.into_iter().map(|(row, _)| row).collect(), next_before }
}
