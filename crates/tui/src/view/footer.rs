//! The bottom of the screen: the input line (what it is for, what is typed, or why it is
//! locked) and the hint line of the keys that work now.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::app::card::Card;
use crate::app::state::{App, Entry};
use crate::locale::fill;
use crate::sanitize::one_line;
use crate::view::worktree::panel_keys;

/// The input line: a prompt and the text (as much of it as fits around the cursor), or a
/// placeholder; and the cursor's column in it.
pub fn input_line(app: &App, width: usize) -> (Line<'static>, usize) {
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
        Entry::StepComment(step) => {
            (format!("{} ", fill(words.comment_prompt, &[("n", &(step + 1))])), "")
        }
        Entry::OwnAnswer => (format!("{}: ", words.own_answer), words.own_placeholder),
        Entry::Message if questions => ("› ".to_owned(), words.input_locked),
        Entry::Message => ("› ".to_owned(), words.input_placeholder),
    };
    let room = width.saturating_sub(prompt.width() + 1);
    let mut column = prompt.width();
    let mut spans = vec![Span::styled(prompt, theme.accent())];
    if app.input.is_empty() {
        spans.push(Span::styled(placeholder, theme.dim()));
    } else {
        let (shown, cursor) = around_cursor(&one_line(&app.input), app.back, room);
        column += cursor;
        spans.push(Span::raw(shown));
    }
    (Line::from(spans), column)
}

/// What of one line of `text` fits in `room` columns with the cursor (`back` characters
/// before the end) in view, and the cursor's column in it. The whole line when it fits;
/// else from its start while the cursor is within the first `room` columns, the part before
/// the cursor otherwise (`…` marks a cut).
fn around_cursor(text: &str, back: usize, room: usize) -> (String, usize) {
    let count = text.chars().count();
    let split = text.char_indices().nth(count - back.min(count)).map_or(text.len(), |(at, _)| at);
    let before = &text[..split];
    if text.width() <= room {
        return (text.to_owned(), before.width());
    }
    if before.width() < room {
        return (head(text, room), before.width());
    }
    let shown = tail(before, room);
    let column = shown.width();
    (shown, column)
}

/// The start of `text` that fits in `room` columns, with `…` where it was cut.
fn head(text: &str, room: usize) -> String {
    let mut kept = String::new();
    let mut used = 1;
    for ch in text.chars() {
        used += ch.to_string().width();
        if used > room {
            break;
        }
        kept.push(ch);
    }
    kept.push('…');
    kept
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

/// The keys that work now, most useful first.
fn keys_now(app: &App) -> Vec<(&'static str, &'static str)> {
    let words = app.words;
    let mut keys: Vec<(&str, &str)> = Vec::new();
    if app.chat_list.is_some() {
        keys = vec![
            ("↑↓", words.key_choose),
            ("Enter", words.key_open),
            ("Del", words.key_delete),
            ("Esc", words.key_close),
        ];
    } else if let Some(diff) = &app.diff {
        keys = match diff.confirm {
            Some(_) => vec![("y", words.key_yes), ("n", words.key_no)],
            None => vec![
                ("←→", words.key_task),
                ("↑↓", words.key_scroll),
                ("R", words.key_restore),
                ("Esc", words.key_close),
            ],
        };
    } else if let Some(panel) = &app.worktree_panel {
        keys = panel_keys(app, panel);
    } else {
        match (app.card(), app.entry) {
            (_, Entry::OwnAnswer | Entry::Feedback | Entry::StepComment(_) | Entry::Field(_)) => {
                keys.extend([("Enter", words.key_send), ("Esc", words.key_back)]);
            }
            (Some(card), Entry::Message) => {
                let arrows = if card.vertical() { "↑↓" } else { "←→" };
                keys.extend([(arrows, words.key_choose), ("Enter", words.key_confirm)]);
                if matches!(card, Card::Plan { .. }) {
                    keys.push(("Alt+↑↓", words.key_step_comment));
                }
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
        let has_tasks = !app.tasks.is_empty()
            || app.chat.as_ref().is_some_and(|view| view.state.completion.is_some());
        if has_tasks {
            keys.push(("^G", words.key_diff));
        }
        keys.extend([
            ("^L", words.key_chats),
            ("^N", words.key_new),
            ("^T", words.key_tools),
            ("PgUp", words.key_scroll),
        ]);
    }
    keys
}

/// The keys that work now, "key action" pairs, as many as fit in `width` columns (the
/// last ones go first; quitting always shows).
pub fn hint_line(app: &App, width: usize) -> Line<'static> {
    let words = app.words;
    let mut keys = keys_now(app);
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

#[cfg(test)]
mod tests {
    use super::around_cursor;

    #[test]
    fn the_cursor_stays_in_view_of_a_long_line() {
        let cases = [
            ("short", 0, 10, ("short", 5)),
            ("short", 2, 10, ("short", 3)),
            ("a long line of text", 0, 10, ("…e of text", 10)),
            ("a long line of text", 19, 10, ("a long li…", 0)),
            ("a long line of text", 14, 10, ("a long li…", 5)),
            ("a long line of text", 5, 10, ("…g line of", 10)),
            ("ёлка и ещё", 0, 20, ("ёлка и ещё", 10)),
        ];
        for (text, back, room, (shown, column)) in cases {
            assert_eq!(
                around_cursor(text, back, room),
                (shown.to_owned(), column),
                "{text:?} {back}"
            );
        }
    }
}
