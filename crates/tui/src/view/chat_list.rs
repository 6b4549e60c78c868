//! The chat list over the chat (Ctrl+L): a search line, then every chat newest first, or the
//! search's hits while words are typed. Delete asks on the chosen row before a chat goes.

use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::app::state::{App, ChatList};
use crate::sanitize::one_line;

pub fn draw_chat_list(frame: &mut Frame<'_>, app: &App, list: &ChatList, area: Rect) {
    let theme = app.theme;
    let words = app.words;
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.dim())
        .title(Span::styled(format!(" {} ", words.chats_label), theme.accent()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let mut lines = vec![
        Line::from(vec![
            Span::styled(format!("{}: ", words.search_prompt), theme.accent()),
            Span::raw(one_line(&list.query)),
        ]),
        Line::default(),
    ];
    if list.rows.is_empty() {
        let empty = if list.query.is_empty() { words.no_chats } else { words.nothing_found };
        lines.push(Line::styled(empty, theme.dim()));
    }
    let room = usize::from(inner.height).saturating_sub(2).max(1);
    let first = list.selected.saturating_sub(room - 1);
    for (index, row) in list.rows.iter().enumerate().skip(first).take(room) {
        let chosen = index == list.selected;
        let style = if chosen { theme.selected() } else { theme.bold() };
        let detail = if chosen && list.deleting {
            Span::styled(format!("  {}", words.delete_confirm), theme.warn())
        } else {
            Span::styled(format!("  {}", one_line(&row.detail)), theme.dim())
        };
        lines.push(Line::from(vec![
            Span::raw(if chosen { "› " } else { "  " }),
            Span::styled(one_line(&row.title), style),
            detail,
        ]));
    }
    frame.render_widget(Paragraph::new(lines), inner);
    let cursor_x =
        inner.x + 2 + (words.search_prompt.chars().count() + list.query.chars().count()) as u16;
    frame.set_cursor_position((cursor_x.min(inner.right().saturating_sub(1)), inner.y));
}
