//! Full-text search over the FTS5 indexes of schema v7 (`chats_fts`, `messages_fts`): the
//! user's words as a safe FTS5 query, and the hits newest first, by keyset on `seq`.
//!
//! **Invariant:** no user text reaches FTS5's query syntax: every word is quoted, so
//! `AND`, `NEAR`, `*`, `"` or `:` in a search are words (or nothing), never an error.

use preflight_protocol::ids::{ChatId, MessageId};
use rusqlite::params;

use super::error::StoreError;
use super::pages::{cut, fetched, upper, Page};
use super::Tx;

/// Where a snippet's match starts and ends (Unicode noncharacters, which FTS5 puts around
/// each matched word; the lifecycle turns them into ranges).
pub const MATCH_START: char = '\u{FDD0}';
pub const MATCH_END: char = '\u{FDD1}';

/// The most words a search takes; more are refused rather than cut.
pub const MAX_SEARCH_WORDS: usize = 16;

/// One hit: the chat, the message that matched (None for the chat's title) and the
/// matched text with its matches between [`MATCH_START`] and [`MATCH_END`].
#[derive(Debug, Clone, PartialEq)]
pub struct SearchRow {
    pub chat_id: ChatId,
    pub chat_title: String,
    pub message_id: Option<MessageId>,
    pub marked: String,
}

/// The text as the indexes hold it: ё written е (schema v7). Every other character stays,
/// and ё and е are two bytes each, so the folded text is the original's length.
pub fn fold_yo(text: &str) -> String {
    text.replace('ё', "е").replace('Ё', "Е")
}

/// The marked text FTS5 made of a folded text (`snippet()` or `highlight()`, its matches
/// between the marks, perhaps `…` at either end) with the letters of `original` put back, so
/// a hit shows ё where it was written. Marked text that does not map (never, as the folded
/// text is the original's, byte for byte) is returned as it is.
fn unfold(marked: &str, original: &str) -> String {
    let is_mark = |c: char| c == MATCH_START || c == MATCH_END;
    let plain: String = marked.chars().filter(|&c| !is_mark(c)).collect();
    let folded = fold_yo(original);
    // A snippet is a piece of the folded text, with an ellipsis before and after it when it
    // starts or ends inside the text.
    let (lead, body) = match plain.strip_prefix('…') {
        Some(rest) if !folded.starts_with(&plain) => (1, rest),
        _ => (0, plain.as_str()),
    };
    let (trail, body) = match body.strip_suffix('…') {
        Some(rest) if !folded.contains(body) => (1, rest),
        _ => (0, body),
    };
    let Some(letters) = folded.find(body).and_then(|at| original.get(at..at + body.len())) else {
        return marked.to_owned();
    };
    let mut letters = letters.chars();
    let body_end = plain.chars().count() - trail;
    let mut seen = 0;
    let mut out = String::with_capacity(marked.len());
    for c in marked.chars() {
        if is_mark(c) {
            out.push(c);
            continue;
        }
        let in_body = seen >= lead && seen < body_end;
        seen += 1;
        out.push(if in_body { letters.next().unwrap_or(c) } else { c });
    }
    out
}

/// The FTS5 query for what the user typed: each word (a run of letters and digits, as
/// `unicode61` reads them) a quoted phrase, all of them required, the last one also as a
/// prefix unless the text ends with a space (it is still being typed). None when the text
/// holds no word.
pub fn fts_query(text: &str) -> Option<String> {
    let text = fold_yo(text);
    let words: Vec<&str> =
        text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).collect();
    let (last, first) = words.split_last()?;
    let typing = !text.ends_with(char::is_whitespace) && text.ends_with(char::is_alphanumeric);
    let quoted = |word: &str| format!("\"{}\"", word.replace('"', "\"\""));
    let mut query: Vec<String> = first.iter().map(|word| quoted(word)).collect();
    query.push(if typing { format!("{}*", quoted(last)) } else { quoted(last) });
    Some(query.join(" "))
}

/// How many words [`fts_query`] would make of `text`.
pub fn word_count(text: &str) -> usize {
    text.split(|c: char| !c.is_alphanumeric()).filter(|word| !word.is_empty()).count()
}

impl Tx<'_> {
    /// Chats whose title matches `query` (an [`fts_query`]), created before `before` (a
    /// chat `seq`), newest first, at most `limit`.
    pub fn search_titles(
        &self,
        query: &str,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Page<SearchRow>, StoreError> {
        let sql = "SELECT c.id, c.title, highlight(chats_fts, 0, char(64976), char(64977)), c.seq
             FROM chats_fts JOIN chats c ON c.seq = chats_fts.rowid
             WHERE chats_fts MATCH ?1 AND chats_fts.rowid < ?2
             ORDER BY chats_fts.rowid DESC LIMIT ?3";
        let mut statement = self.sql.prepare(sql)?;
        let rows = statement.query_map(params![query, upper(before), fetched(limit)], |row| {
            let title: String = row.get(1)?;
            let marked = unfold(&row.get::<_, String>(2)?, &title);
            let hit =
                SearchRow { chat_id: row.get(0)?, chat_title: title, message_id: None, marked };
            Ok((hit, row.get::<_, i64>(3)?))
        })?;
        Ok(cut(rows.collect::<Result<_, _>>()?, limit))
    }

    /// Messages whose content matches `query`, stored before `before` (a message `seq`),
    /// newest first, at most `limit`, each with a snippet of about 16 words around its match.
    pub fn search_messages(
        &self,
        query: &str,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Page<SearchRow>, StoreError> {
        let sql = "SELECT c.id, c.title, m.id,
                    snippet(messages_fts, 0, char(64976), char(64977), '…', 16), m.seq, m.content
             FROM messages_fts JOIN messages m ON m.seq = messages_fts.rowid
                  JOIN chats c ON c.id = m.chat_id
             WHERE messages_fts MATCH ?1 AND messages_fts.rowid < ?2
             ORDER BY messages_fts.rowid DESC LIMIT ?3";
        let mut statement = self.sql.prepare(sql)?;
        let rows = statement.query_map(params![query, upper(before), fetched(limit)], |row| {
            let marked = unfold(&row.get::<_, String>(3)?, &row.get::<_, String>(5)?);
            let hit = SearchRow {
                chat_id: row.get(0)?,
                chat_title: row.get(1)?,
                message_id: Some(row.get(2)?),
                marked,
            };
            Ok((hit, row.get::<_, i64>(4)?))
        })?;
        Ok(cut(rows.collect::<Result<_, _>>()?, limit))
    }
}

#[cfg(test)]
mod tests {
    use super::{fold_yo, fts_query, unfold, MATCH_END, MATCH_START};

    #[test]
    fn a_snippet_of_the_folded_text_gets_its_yo_back() {
        let original = "Ёлочная игрушка… и ещё одна, зелёная";
        assert_eq!(fold_yo(original).len(), original.len());
        let mark = |word: &str| format!("{MATCH_START}{word}{MATCH_END}");
        let whole = format!("{} игрушка… и еще одна, зеленая", mark("Елочная"));
        assert_eq!(
            unfold(&whole, original),
            format!("{} игрушка… и ещё одна, зелёная", mark("Ёлочная"))
        );
        let inside = format!("…и {} одна…", mark("еще"));
        assert_eq!(unfold(&inside, original), format!("…и {} одна…", mark("ещё")));
        let start = format!("{} игрушка…", mark("Елочная"));
        assert_eq!(
            unfold(&start, original),
            format!("{} игрушка…", mark("Ёлочная")),
            "the text's own … kept"
        );
        assert_eq!(unfold("not from it", original), "not from it");
    }

    #[test]
    fn user_text_becomes_quoted_words_the_last_a_prefix_while_typed() {
        let cases: &[(&str, Option<&str>)] = &[
            ("csv export", Some(r#""csv" "export"*"#)),
            ("csv export ", Some(r#""csv" "export""#)),
            ("Отчёт прода", Some(r#""Отчет" "прода"*"#)),
            (r#"a" OR b*"#, Some(r#""a" "OR" "b""#)),
            ("NEAR(x y) col:z", Some(r#""NEAR" "x" "y" "col" "z"*"#)),
            ("don't", Some(r#""don" "t"*"#)),
            ("\"\" ** :: ()", None),
            ("   ", None),
        ];
        for (text, expected) in cases {
            assert_eq!(fts_query(text).as_deref(), *expected, "{text:?}");
        }
    }
}
