//! Search across every chat (issue 33): titles first, then messages, newest first, each hit
//! with its matched words as ranges of plain text (never markup made from stored text).

use preflight_protocol::ids::{ChatId, MessageId};
use preflight_store::{fts_query, word_count, SearchRow, MATCH_END, MATCH_START, MAX_SEARCH_WORDS};
use serde::Serialize;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::pages::{CursorKind, Limits};

/// The hits a search page holds unless asked otherwise, and the most it may hold.
pub const SEARCH_PAGE: Limits = Limits { default: 20, max: 100 };

/// The longest search, in characters.
pub const MAX_SEARCH_CHARS: usize = 200;

/// `GET /v1/search`: chats whose title matched (newest first), then messages that matched
/// (newest first).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchPage {
    pub data: Vec<SearchHit>,
    /// Pass as `cursor` (with the same `q`) for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// One place a search matched: a chat's title (`message_id` null) or one of its messages.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SearchHit {
    pub chat_id: ChatId,
    pub chat_title: String,
    pub message_id: Option<MessageId>,
    /// The title, or about 16 words of the message around the match (`…` where cut), in
    /// pieces of plain text; `matched` marks the words the search found.
    pub snippet: Vec<SnippetPart>,
}

/// A piece of a snippet: plain text, matched or not.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SnippetPart {
    pub text: String,
    pub matched: bool,
}

impl Engine {
    /// Searches every chat's title and messages for all the words of `text` (the last one
    /// also as a prefix while it is typed): `limit` hits (1–100, 20 unless given) from
    /// `cursor`. A blank search, one over 200 characters or 16 words is a bad request.
    pub fn search(
        &self,
        text: &str,
        limit: Option<u32>,
        cursor: Option<&str>,
    ) -> Result<SearchPage, ApiError> {
        let limit = SEARCH_PAGE.checked(limit)?;
        let text = checked_search(text)?;
        let position = cursor.map(position_of).transpose()?;
        let Some(query) = fts_query(text) else {
            return Ok(SearchPage { data: Vec::new(), next_cursor: None });
        };
        let (rows, next_cursor) = self.inner.store.read(|tx| {
            let mut rows = Vec::new();
            if let Position::Titles(before) = position.unwrap_or(Position::Titles(None)) {
                let titles = tx.search_titles(&query, before, limit)?;
                rows = titles.rows;
                if let Some(seq) = titles.next_before {
                    return Ok((rows, Some(CursorKind::SearchTitles.cursor(seq))));
                }
            }
            let before = match position {
                Some(Position::Messages(before)) => Some(before),
                _ => None,
            };
            let left = limit - rows.len();
            // A page the titles filled: the next one starts the messages, if any matched.
            let messages = tx.search_messages(&query, before, left.max(1))?;
            if left == 0 {
                let next =
                    messages.rows.first().map(|_| CursorKind::SearchMessages.cursor(i64::MAX));
                return Ok((rows, next));
            }
            rows.extend(messages.rows);
            Ok((rows, messages.next_before.map(|seq| CursorKind::SearchMessages.cursor(seq))))
        })?;
        Ok(SearchPage { data: rows.into_iter().map(hit_of).collect(), next_cursor })
    }
}

/// Where a search page starts: among the titles or among the messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Position {
    Titles(Option<i64>),
    Messages(i64),
}

fn position_of(cursor: &str) -> Result<Position, ApiError> {
    match CursorKind::SearchTitles.seq(cursor) {
        Ok(seq) => Ok(Position::Titles(Some(seq))),
        Err(_) => CursorKind::SearchMessages.seq(cursor).map(Position::Messages),
    }
}

fn checked_search(text: &str) -> Result<&str, ApiError> {
    if text.trim().is_empty() {
        return Err(ApiError::bad_request("say what to search for: q is blank"));
    }
    if text.chars().count() > MAX_SEARCH_CHARS {
        return Err(ApiError::bad_request(format!(
            "a search is at most {MAX_SEARCH_CHARS} characters"
        )));
    }
    if word_count(text) > MAX_SEARCH_WORDS {
        return Err(ApiError::bad_request(format!("a search is at most {MAX_SEARCH_WORDS} words")));
    }
    Ok(text)
}

fn hit_of(row: SearchRow) -> SearchHit {
    SearchHit {
        chat_id: row.chat_id,
        chat_title: row.chat_title,
        message_id: row.message_id,
        snippet: snippet_parts(&row.marked),
    }
}

/// FTS5's marked text as pieces, matched or not, on one line; empty pieces dropped.
fn snippet_parts(marked: &str) -> Vec<SnippetPart> {
    let line = marked.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut parts = Vec::new();
    let mut rest = line.as_str();
    while let Some(start) = rest.find(MATCH_START) {
        push_part(&mut parts, &rest[..start], false);
        rest = &rest[start + MATCH_START.len_utf8()..];
        let end = rest.find(MATCH_END).unwrap_or(rest.len());
        push_part(&mut parts, &rest[..end], true);
        rest = rest.get(end + MATCH_END.len_utf8()..).unwrap_or("");
    }
    push_part(&mut parts, rest, false);
    parts
}

fn push_part(parts: &mut Vec<SnippetPart>, text: &str, matched: bool) {
    let text = text.replace([MATCH_START, MATCH_END], "");
    if !text.is_empty() {
        parts.push(SnippetPart { text, matched });
    }
}

#[cfg(test)]
mod tests {
    use super::{checked_search, snippet_parts, SnippetPart};

    fn part(text: &str, matched: bool) -> SnippetPart {
        SnippetPart { text: text.into(), matched }
    }

    #[test]
    fn marked_text_becomes_plain_pieces() {
        let marked = "…the \u{FDD0}CSV\u{FDD1} export\n of <b>\u{FDD0}orders\u{FDD1}</b>";
        assert_eq!(
            snippet_parts(marked),
            [
                part("…the ", false),
                part("CSV", true),
                part(" export of <b>", false),
                part("orders", true),
                part("</b>", false)
            ]
        );
        assert_eq!(snippet_parts("\u{FDD0}cut"), [part("cut", true)]);
        assert_eq!(snippet_parts(""), []);
    }

    #[test]
    fn a_search_is_some_words_of_reasonable_length() {
        assert!(checked_search("  ").is_err());
        assert!(checked_search(&"a".repeat(201)).is_err());
        assert!(checked_search(&"w ".repeat(17)).is_err());
        assert_eq!(checked_search("csv export"), Ok("csv export"));
        assert_eq!(checked_search("\"*"), Ok("\"*"), "no words: an empty page, not an error");
    }
}
