//! A task's diff over the chat (Ctrl+G): its title and figures, then each file changed with
//! its status and its patch (added lines green, removed red, hunks in the accent colour),
//! scrolled; and the restore's question at the bottom once R was pressed.

use std::cell::Cell;

use preflight_engine::checkpoints::ChangeStat;
use preflight_engine::lifecycle::{CheckpointDiff, FileChange, RestorePreview};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::app::state::{App, DiffView};
use crate::locale::fill;
use crate::sanitize::one_line;
use crate::wrap::wrap_all;

pub fn draw_diff(frame: &mut Frame<'_>, app: &App, view: &DiffView, area: Rect) {
    let theme = app.theme;
    let words = app.words;
    frame.render_widget(Clear, area);
    let title = match view.span() {
        Some((span, title)) => {
            fill(words.diff_title, &[("id", &span.task), ("title", &one_line(title))])
        }
        None => words.key_diff.to_owned(),
    };
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.dim())
        .title(Span::styled(format!(" {title} "), theme.accent()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let question = view.confirm.as_ref().map(|preview| confirm_lines(app, view, preview));
    let question = question.map(|lines| wrap_all(&lines, usize::from(inner.width)));
    let asked = question.as_ref().map_or(0, |lines| lines.len() as u16);
    let [body, bottom] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(asked)]).areas(inner);
    draw_scrolled(frame, app, &diff_lines(app, view), body, (view.scroll, &view.overflow));
    if let Some(question) = question {
        frame.render_widget(Paragraph::new(question), bottom);
    }
}

/// `lines` wrapped to `body`, from `scroll` on (the most it can be kept in `overflow`), the
/// last row saying how many lines are below.
pub(super) fn draw_scrolled(
    frame: &mut Frame<'_>,
    app: &App,
    lines: &[Line<'static>],
    body: Rect,
    (scroll, overflow): (usize, &Cell<usize>),
) {
    let lines = wrap_all(lines, usize::from(body.width));
    let rows = usize::from(body.height);
    let most = lines.len().saturating_sub(rows);
    overflow.set(most);
    let first = scroll.min(most);
    let mut shown: Vec<Line<'static>> = lines.iter().skip(first).take(rows).cloned().collect();
    let below = lines.len().saturating_sub(first + rows);
    if below > 0 && rows > 1 {
        shown.pop();
        let more = fill(app.words.more_below, &[("n", &(below + 1))]);
        shown.push(Line::styled(more, app.theme.dim()));
    }
    frame.render_widget(Paragraph::new(shown), body);
}

fn diff_lines(app: &App, view: &DiffView) -> Vec<Line<'static>> {
    let words = app.words;
    let theme = app.theme;
    let Some(diff) = &view.diff else {
        return vec![Line::styled(words.no_task_diffs, theme.dim())];
    };
    if diff.files.is_empty() {
        return vec![Line::styled(words.diff_none, theme.dim())];
    }
    let mut lines = vec![Line::styled(stat_line(app, diff), theme.bold())];
    for file in &diff.files {
        lines.push(Line::default());
        lines.extend(file_lines(app, file));
    }
    if let Some(cut) = &diff.truncated {
        lines.push(Line::default());
        let left_out = fill(words.diff_left_out, &[("n", &cut.files_left_out)]);
        lines.push(Line::styled(left_out, theme.warn()));
    }
    lines
}

fn stat_line(app: &App, diff: &CheckpointDiff) -> String {
    change_stat(app, &diff.stat)
}

/// "N file(s) changed, +A −D".
pub(super) fn change_stat(app: &App, stat: &ChangeStat) -> String {
    let values: [(&str, &dyn std::fmt::Display); 3] =
        [("files", &stat.files), ("add", &stat.additions), ("del", &stat.deletions)];
    fill(app.words.diff_stat, &values)
}

pub(super) fn file_lines(app: &App, file: &FileChange) -> Vec<Line<'static>> {
    let words = app.words;
    let theme = app.theme;
    let status = match file.status.as_str() {
        "added" => words.file_added,
        "deleted" => words.file_deleted,
        "renamed" => words.file_renamed,
        "type_changed" => words.file_type_changed,
        _ => words.file_modified,
    };
    let mut name = one_line(&file.path);
    if let Some(old) = &file.old_path {
        name = format!("{} → {name}", one_line(old));
    }
    let mut lines = vec![Line::from(vec![
        Span::styled(format!("{status} "), theme.accent()),
        Span::styled(name, theme.bold()),
        Span::styled(format!("  +{} −{}", file.additions, file.deletions), theme.dim()),
    ])];
    let patch = match (&file.patch, file.binary, file.too_large) {
        (_, true, _) => {
            return [lines, vec![Line::styled(words.diff_binary, theme.dim())]].concat()
        }
        (_, _, true) => {
            return [lines, vec![Line::styled(words.diff_too_large, theme.dim())]].concat();
        }
        (Some(patch), ..) => patch,
        (None, ..) => return lines,
    };
    for line in patch.lines().filter(|line| !is_header(line)) {
        let style = match line.chars().next() {
            Some('+') => theme.ok(),
            Some('-') => theme.bad(),
            Some('@') => theme.accent(),
            _ => theme.dim(),
        };
        lines.push(Line::styled(one_line(line), style));
    }
    lines
}

/// A patch's own header lines, which the file's line above already says.
fn is_header(line: &str) -> bool {
    ["diff --git ", "index ", "--- ", "+++ ", "new file mode", "deleted file mode"]
        .iter()
        .any(|start| line.starts_with(start))
}

fn confirm_lines(app: &App, view: &DiffView, preview: &RestorePreview) -> Vec<Line<'static>> {
    let words = app.words;
    let id = view.span().map_or(0, |(span, _)| span.task);
    let values: [(&str, &dyn std::fmt::Display); 3] =
        [("id", &id), ("written", &preview.writes.len()), ("deleted", &preview.deletes.len())];
    let mut lines = vec![Line::styled(fill(words.restore_ask, &values), app.theme.warn())];
    if !preview.user_changed.is_empty() {
        let files = one_line(&preview.user_changed.join(", "));
        lines.push(Line::styled(fill(words.restore_keeps, &[("files", &files)]), app.theme.dim()));
    }
    lines
}
