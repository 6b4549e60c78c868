//! Lists a page at a time (issue 33): the chat list newest first, a chat's messages latest
//! page first and older pages on request, each with an opaque cursor for the next page.
//!
//! **Invariant:** pages are cut by keyset on `seq`, never by offset, so chats created or
//! messages added while a client pages move nothing it has read: no row is skipped or
//! shown twice. A cursor is opaque to clients: a letter naming its list and the `seq` it
//! stops before; one of another list, or made up, is `ERR_BAD_REQUEST`.

use preflight_protocol::chat::{Chat, Message};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_store::{ChatSnapshot, Page};
use serde::Serialize;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;

/// The chats a page holds unless asked otherwise, and the most it may hold.
pub const CHAT_PAGE: Limits = Limits { default: 50, max: 200 };
/// The messages a page (and a chat's view) holds unless asked otherwise, and the most.
pub const MESSAGE_PAGE: Limits = Limits { default: 100, max: 500 };

/// The size a page takes when none is asked for, and the largest one may ask for.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub default: u32,
    pub max: u32,
}

impl Limits {
    /// The asked-for size, checked: 1 to `max`.
    pub fn checked(self, asked: Option<u32>) -> Result<usize, ApiError> {
        match asked {
            None => Ok(self.default as usize),
            Some(limit) if (1..=self.max).contains(&limit) => Ok(limit as usize),
            Some(limit) => Err(ApiError::bad_request(format!(
                "limit must be between 1 and {}, not {limit}",
                self.max
            ))),
        }
    }
}

/// Which list a cursor belongs to: its first letter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CursorKind {
    Chats,
    Messages,
    SearchTitles,
    SearchMessages,
}

impl CursorKind {
    fn letter(self) -> char {
        match self {
            CursorKind::Chats => 'c',
            CursorKind::Messages => 'm',
            CursorKind::SearchTitles => 't',
            CursorKind::SearchMessages => 'h',
        }
    }

    /// The cursor of this list that stops before `seq`.
    pub fn cursor(self, seq: i64) -> String {
        format!("{}{seq:x}", self.letter())
    }

    /// The `seq` a cursor of this list stops before; anything else is a bad request.
    pub fn seq(self, cursor: &str) -> Result<i64, ApiError> {
        cursor
            .strip_prefix(self.letter())
            .filter(|digits| !digits.is_empty() && digits.len() <= 16)
            .and_then(|digits| i64::from_str_radix(digits, 16).ok())
            .filter(|seq| *seq > 0)
            .ok_or_else(|| {
                ApiError::bad_request(format!("{cursor:?} is not a cursor of this list"))
            })
    }
}

/// `GET /v1/chats`: a page of chats, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatPage {
    pub data: Vec<Chat>,
    /// Pass as `cursor` for the next (older) page; null on the last page.
    pub next_cursor: Option<String>,
}

/// `GET /v1/chats/{id}/messages`: a page of a chat's messages, oldest first within the page.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MessagePage {
    pub data: Vec<Message>,
    /// Pass as `before` for the page of older messages; null when this page starts the chat.
    pub next_cursor: Option<String>,
}

impl Engine {
    /// A page of chats, newest first: `limit` (1–200, 50 unless given) from `cursor`.
    pub fn chat_page(
        &self,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<ChatPage, ApiError> {
        let limit = CHAT_PAGE.checked(limit)?;
        let before = cursor.map(|cursor| CursorKind::Chats.seq(cursor)).transpose()?;
        let page = self.inner.store.read(|tx| tx.chat_page(before, limit))?;
        let next_cursor = cursor_of(CursorKind::Chats, &page);
        Ok(ChatPage { data: page.rows, next_cursor })
    }

    /// A page of the chat's messages: the latest `limit` (1–500, 100 unless given), or
    /// those before `before`, oldest first.
    pub fn message_page(
        &self,
        chat_id: &ChatId,
        before: Option<&str>,
        limit: Option<u32>,
    ) -> Result<MessagePage, ApiError> {
        let limit = MESSAGE_PAGE.checked(limit)?;
        let before = before.map(|cursor| CursorKind::Messages.seq(cursor)).transpose()?;
        let page = self.inner.store.read(|tx| tx.message_page(chat_id, before, limit))?;
        let next_cursor = cursor_of(CursorKind::Messages, &page);
        Ok(MessagePage { data: page.rows, next_cursor })
    }

    /// Everything stored for the chat with the latest page of its messages, or the messages
    /// from `from` on; and the cursor of the older ones (None when none is older).
    pub(super) fn paged_snapshot(
        &self,
        chat_id: &ChatId,
        from: Option<&MessageId>,
    ) -> Result<(ChatSnapshot, Option<String>), ApiError> {
        let limit = MESSAGE_PAGE.default as usize;
        let (snapshot, page) = self.inner.store.read(|tx| {
            let page = match from {
                Some(from) => tx.messages_from(chat_id, from)?,
                None => tx.message_page(chat_id, None, limit)?,
            };
            let snapshot = ChatSnapshot {
                chat: tx.chat(chat_id)?,
                messages: Vec::new(),
                state: tx.state(chat_id)?,
                revisions: Vec::new(),
                task_list: tx.task_list(chat_id)?,
                changes: tx.plan_changes(chat_id)?,
            };
            Ok((snapshot, page))
        })?;
        let cursor = cursor_of(CursorKind::Messages, &page);
        Ok((ChatSnapshot { messages: page.rows, ..snapshot }, cursor))
    }
}

fn cursor_of<T>(kind: CursorKind, page: &Page<T>) -> Option<String> {
    page.next_before.map(|seq| kind.cursor(seq))
}

#[cfg(test)]
mod tests {
    use super::{CursorKind, CHAT_PAGE};

    #[test]
    fn a_cursor_is_read_back_only_by_its_own_list() {
        let cursor = CursorKind::Chats.cursor(3000);
        assert_eq!(CursorKind::Chats.seq(&cursor), Ok(3000));
        for bad in [CursorKind::Messages.cursor(3000).as_str(), "", "c", "c-1", "c0", "czz", "c1 "]
        {
            assert!(CursorKind::Chats.seq(bad).is_err(), "{bad:?}");
        }
        assert!(CursorKind::Chats.seq("c11111111111111111").is_err(), "17 digits");
    }

    #[test]
    fn a_limit_is_one_to_the_lists_most() {
        assert_eq!(CHAT_PAGE.checked(None), Ok(50));
        assert_eq!(CHAT_PAGE.checked(Some(200)), Ok(200));
        assert!(CHAT_PAGE.checked(Some(0)).is_err() && CHAT_PAGE.checked(Some(201)).is_err());
    }
}
