//! The whole screen from the state (pure: state → buffer). Top to bottom: the title and the
//! status line, the chat's worktree line when it has one, the task list (beside the chat from 110 columns, above it below that), the
//! chat, the card waiting for the user, an error if one came, the input line, the key hints.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Padding, Paragraph};
use ratatui::Frame;
use unicode_width::UnicodeWidthStr;

use crate::app::state::App;
use crate::locale::fill;
use crate::sanitize::one_line;
use crate::view::cards::{card_body, card_choices, card_title};
use crate::view::chat_list::draw_chat_list;
use crate::view::diff::draw_diff;
use crate::view::footer::{hint_line, input_line};
use crate::view::tasks::{focus_line, task_panel};
use crate::view::transcript::transcript_lines;
use crate::view::usage::usage_text;
use crate::view::worktree::{draw_worktree_panel, worktree_line};
use crate::wrap::wrap_all;

/// From this width the task list stands beside the chat.
const SIDE_BY_SIDE: u16 = 110;
const SIDE_WIDTH: u16 = 36;
/// The status line's spinner while a turn runs, a frame a tick.
const SPINNER: [char; 10] = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
/// Rows of the chat kept visible under a card or the task list.
const MIN_CHAT_ROWS: u16 = 3;

pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    let notice_rows = u16::from(app.notice.is_some() || app.info.is_some());
    let worktree = worktree_line(app).map(|line| wrap_all(&[line], usize::from(area.width)));
    let worktree_rows = worktree.as_ref().map_or(0, |lines| lines.len().min(2) as u16);
    let [header, worktree_area, body, notice, input, footer] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(worktree_rows),
        Constraint::Min(1),
        Constraint::Length(notice_rows),
        Constraint::Length(2),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(frame, app, header);
    frame.render_widget(Paragraph::new(worktree.unwrap_or_default()), worktree_area);
    let chat = draw_tasks(frame, app, body);
    let transcript = draw_card(frame, app, chat);
    draw_transcript(frame, app, transcript);
    if let Some(text) = &app.notice {
        frame.render_widget(Paragraph::new(Line::styled(one_line(text), app.theme.bad())), notice);
    } else if let Some(text) = &app.info {
        frame.render_widget(Paragraph::new(Line::styled(one_line(text), app.theme.dim())), notice);
    }
    draw_input(frame, app, input);
    frame.render_widget(Paragraph::new(hint_line(app, usize::from(footer.width))), footer);
    let [_, middle, _] =
        Layout::vertical([Constraint::Length(1), Constraint::Min(3), Constraint::Length(1)])
            .areas(area);
    if let Some(panel) = &app.worktree_panel {
        draw_worktree_panel(frame, app, panel, middle);
    }
    if let Some(view) = &app.diff {
        draw_diff(frame, app, view, middle);
    }
    if let Some(list) = &app.chat_list {
        draw_chat_list(frame, app, list, middle);
    }
}

fn draw_header(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let title =
        app.chat.as_ref().map_or(app.words.new_chat.to_owned(), |view| one_line(&view.chat.title));
    let mut status = app.words.phase(app.phase).to_owned();
    if app.running() {
        status = format!("{} {status}", SPINNER[app.tick % SPINNER.len()]);
    }
    let status_width = status.width() as u16;
    let [left, right] =
        Layout::horizontal([Constraint::Min(1), Constraint::Length(status_width + 1)]).areas(area);
    let usage = app.chat.as_ref().and_then(|view| usage_text(app.words, &view.usage));
    let mut heading = vec![
        Span::styled("Preflight", app.theme.accent()),
        Span::styled(" · ", app.theme.dim()),
        Span::styled(title, app.theme.bold()),
    ];
    let used: usize = heading.iter().map(|span| span.content.width()).sum();
    // The usage goes where the title leaves room for it, else not at all.
    if let Some(usage) = usage.filter(|usage| used + usage.width() + 3 <= usize::from(left.width)) {
        heading.push(Span::styled(format!("   {usage}"), app.theme.dim()));
    }
    frame.render_widget(Paragraph::new(Line::from(heading)), left);
    frame.render_widget(
        Paragraph::new(Line::styled(status, app.theme.warn())).right_aligned(),
        right,
    );
}

/// Draws the task panel, if any; returns the area left for the chat.
fn draw_tasks(frame: &mut Frame<'_>, app: &App, body: Rect) -> Rect {
    let Some((title, lines)) = task_panel(app) else { return body };
    let title = Span::styled(format!(" {title} "), app.theme.accent());
    if body.width >= SIDE_BY_SIDE {
        let [chat, side] =
            Layout::horizontal([Constraint::Min(20), Constraint::Length(SIDE_WIDTH)]).areas(body);
        let block = Block::default()
            .borders(Borders::LEFT | Borders::TOP)
            .border_style(app.theme.dim())
            .title(title);
        let inner = block.inner(side);
        frame.render_widget(block, side);
        render_window(
            frame,
            &wrap_all(&lines, usize::from(inner.width)),
            inner,
            focus_line(&lines),
        );
        return chat;
    }
    let room = body.height.saturating_sub(MIN_CHAT_ROWS + 1) / 2;
    let rows = (lines.len() as u16).min(room.max(1));
    let [panel, chat] =
        Layout::vertical([Constraint::Length(rows + 1), Constraint::Min(1)]).areas(body);
    let block = Block::default().borders(Borders::TOP).border_style(app.theme.dim()).title(title);
    let inner = block.inner(panel);
    frame.render_widget(block, panel);
    render_window(frame, &lines, inner, focus_line(&lines));
    chat
}

/// `lines` in `area`, scrolled so that line `focus` shows.
fn render_window(frame: &mut Frame<'_>, lines: &[Line<'static>], area: Rect, focus: usize) {
    let rows = usize::from(area.height);
    let first =
        focus.saturating_sub(rows.saturating_sub(1) / 2).min(lines.len().saturating_sub(rows));
    let shown: Vec<Line<'static>> = lines.iter().skip(first).take(rows).cloned().collect();
    frame.render_widget(Paragraph::new(shown), area);
}

/// Draws the waiting card at the bottom of `area`; returns the area left above it.
fn draw_card(frame: &mut Frame<'_>, app: &App, area: Rect) -> Rect {
    let Some(card) = app.card() else { return area };
    let inner_width = usize::from(area.width.saturating_sub(4));
    let body = wrap_all(&card_body(app, &card), inner_width);
    let choices = wrap_all(&card_choices(app, &card), inner_width);
    let most = area.height.saturating_sub(MIN_CHAT_ROWS);
    let wanted = (body.len() + choices.len() + 2) as u16;
    let height = wanted.min(most);
    let [above, card_area] =
        Layout::vertical([Constraint::Min(0), Constraint::Length(height)]).areas(area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(app.theme.warn())
        .padding(Padding::horizontal(1))
        .title(Span::styled(format!(" {} ", card_title(app, &card)), app.theme.warn()));
    let inner = block.inner(card_area);
    frame.render_widget(block, card_area);
    let body_rows = usize::from(inner.height).saturating_sub(choices.len());
    let mut lines = card_window(app, &body, body_rows);
    lines.extend(choices);
    frame.render_widget(Paragraph::new(lines), inner);
    above
}

/// The card's body in `rows`: whole when it fits; else from `card_scroll` on, its last row
/// saying how many lines are below (PgDn shows them).
fn card_window(app: &App, body: &[Line<'static>], rows: usize) -> Vec<Line<'static>> {
    if body.len() <= rows {
        app.card_overflow.set(0);
        return body.to_vec();
    }
    let most = body.len() - rows;
    app.card_overflow.set(most);
    let first = app.card_scroll.min(most);
    if first == most {
        return body[most..].to_vec();
    }
    let room = rows.saturating_sub(1);
    let mut lines: Vec<Line<'static>> = body.iter().skip(first).take(room).cloned().collect();
    let below = body.len() - first - lines.len();
    lines.push(Line::styled(fill(app.words.more_below, &[("n", &below)]), app.theme.dim()));
    lines
}

fn draw_transcript(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let lines = wrap_all(&transcript_lines(app), usize::from(area.width));
    let rows = usize::from(area.height);
    let bottom = lines.len().saturating_sub(app.scroll.min(lines.len().saturating_sub(rows)));
    let first = bottom.saturating_sub(rows);
    let mut shown: Vec<Line<'static>> = lines[first..bottom].to_vec();
    let below = lines.len() - bottom;
    if below > 0 && rows > 1 {
        shown.pop();
        let more = format!("↓ {} (PgDn)", fill(app.words.lines, &[("n", &below)]));
        shown.push(Line::styled(more, app.theme.dim()));
    }
    frame.render_widget(Paragraph::new(shown), area);
}

fn draw_input(frame: &mut Frame<'_>, app: &App, area: Rect) {
    let block = Block::default().borders(Borders::TOP).border_style(app.theme.dim());
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let (line, column) = input_line(app, usize::from(inner.width));
    frame.render_widget(Paragraph::new(line), inner);
    if app.chat_list.is_none() {
        let column = u16::try_from(column).unwrap_or(u16::MAX);
        let x = inner.x + column.min(inner.width.saturating_sub(1));
        frame.set_cursor_position((x, inner.y));
    }
}
