//! The bottom of the screen: the input line (what it is for, what is typed, or why it is
//! locked) and the hint line of the keys that work now.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::app::card::Card;
use crate::app::state::{App, Entry};
use crate::sanitize::one_line;

/// The input line: a prompt and the text (its end, when it is wider than `width`), or a
/// placeholder.
pub fn input_line(app: &App, width: usize) -> Line<'static> {
    let theme = app.theme;
    let words = app.words;
    let questions = matches!(app.card(), Some(Card::Questions { .. }));
    let field = match (app.entry, app.card()) {
        (Entry::Field(index), Some(card)) => card.fields().into_iter().nth(index).map(|f| f.name),
        _ => None,
    };
    let (prompt, placeholder) = match app.entry {
        Entry::Field(_) => (format!("{}: ", one_line(&field.unwrap_or_default())), ""),
        Entry::Feedback => (format!("{} ", words.feedback_prompt), ""),
        Entry::OwnAnswer => (format!("{}: ", words.own_answer), words.own_placeholder),
        Entry::Message if questions => ("› ".to_owned(), words.input_locked),
        Entry::Message => ("› ".to_owned(), words.input_placeholder),
    };
    let room = width.saturating_sub(prompt.width() + 1);
    let mut spans = vec![Span::styled(prompt, theme.accent())];
    if app.input.is_empty() {
        spans.push(Span::styled(placeholder, theme.dim()));
    } else {
        spans.push(Span::raw(tail(&one_line(&app.input), room)));
    }
    Line::from(spans)
}

/// The end of `text` that fits in `room` columns, with `…` where it was cut.
fn tail(text: &str, room: usize) -> String {
    if text.width() <= room {
        return text.to_owned();
    }
    let mut kept: Vec<char> = Vec::new();
    let mut used = 1;
    for ch in text.chars().rev() {
        used += ch.to_string().width();
        if used > room {
            break;
        }
        kept.push(ch);
    }
    std::iter::once('…').chain(kept.into_iter().rev()).collect()
}

/// The keys that work now, "key action" pairs, as many as fit in `width` columns (the
/// last ones go first; quitting always shows).
pub fn hint_line(app: &App, width: usize) -> Line<'static> {
    let words = app.words;
    let mut keys: Vec<(&str, &str)> = Vec::new();
    if app.chat_list.is_some() {
        keys = vec![("↑↓", words.key_choose), ("Enter", words.key_open), ("Esc", words.key_close)];
    } else {
        match (app.card(), app.entry) {
            (_, Entry::OwnAnswer | Entry::Feedback | Entry::Field(_)) => {
                keys.extend([("Enter", words.key_send), ("Esc", words.key_back)]);
            }
            (Some(card), Entry::Message) => {
                let arrows = if card.vertical() { "↑↓" } else { "←→" };
                keys.extend([(arrows, words.key_choose), ("Enter", words.key_confirm)]);
            }
            (None, Entry::Message) => keys.push(("Enter", words.key_send)),
        }
        if app.running() {
            keys.push(("Esc", words.key_stop));
        }
        if matches!(app.card(), Some(Card::Questions { .. } | Card::Plan { .. }))
            || app.running() && app.phase == preflight_engine::chat::Phase::Planning
        {
            keys.push(("^X", words.key_cancel_plan));
        }
        keys.extend([
            ("^L", words.key_chats),
            ("^N", words.key_new),
            ("^T", words.key_tools),
            ("PgUp", words.key_scroll),
        ]);
    }
    let quit = ("^C", words.key_quit);
    let room = width.saturating_sub(hint_width(quit));
    let mut used = 0;
    keys.retain(|pair| {
        used += hint_width(*pair);
        used <= room
    });
    keys.push(quit);
    let mut spans = Vec::new();
    for (key, action) in keys {
        spans.push(Span::styled(key.to_owned(), app.theme.bold()));
        spans.push(Span::styled(format!(" {action}  "), app.theme.dim()));
    }
    Line::from(spans)
}

fn hint_width((key, action): (&str, &str)) -> usize {
    key.width() + action.width() + 3
}
