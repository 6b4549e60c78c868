//! A chat in its own git worktree (DESIGN §18) on screen: the line under the title (its
//! branch, where it came from, its changes or what became of it: merged, kept as a branch,
//! its folder gone), and the panel over the chat with `/diff` or `/merge`'s preview (the
//! commit message, conflicts and the user's own changes that stop it, the files), the
//! question at its bottom.

use preflight_engine::chat::WorktreeState;
use preflight_engine::lifecycle::{FileChange, MergeOutcome, WorktreeView};
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};
use ratatui::Frame;

use crate::app::state::{App, PanelShows, WorktreePanel};
use crate::locale::fill;
use crate::sanitize::one_line;
use crate::view::diff::{change_stat, draw_scrolled, file_lines};
use crate::wrap::wrap_all;

/// A commit's first 7 characters, as git shows it.
pub fn short(commit: &str) -> String {
    commit.chars().take(7).collect()
}

/// The open chat's worktree line; for a new chat asked for in a worktree, that it will have
/// one. None for a chat working in its folder itself.
pub fn worktree_line(app: &App) -> Option<Line<'static>> {
    let words = app.words.worktree;
    let theme = app.theme;
    let Some(view) = &app.chat else {
        let repo = app.workspace.as_deref().filter(|_| app.new_worktree == Some(true))?;
        return Some(Line::styled(fill(words.pending, &[("repo", &one_line(repo))]), theme.dim()));
    };
    let worktree = view.chat.worktree.as_ref()?;
    let base = base_of(app, worktree.base_branch.as_deref());
    let branch = one_line(&worktree.branch);
    let head = fill(words.branch_from, &[("branch", &branch), ("base", &base)]);
    let seen = app.worktree.as_ref().filter(|seen| seen.worktree.branch == worktree.branch);
    let missing = seen.is_some_and(|seen| seen.missing);
    let (state, style) = match (&worktree.state, seen) {
        _ if missing => (words.missing.to_owned(), theme.warn()),
        (WorktreeState::Kept { .. }, _) => (words.kept.to_owned(), theme.dim()),
        (WorktreeState::Merged { commit, .. }, _) => {
            (fill(words.merged, &[("base", &base), ("commit", &short(commit))]), theme.ok())
        }
        (WorktreeState::Active, Some(seen)) if seen.stat.files > 0 => {
            (change_stat(app, &seen.stat), theme.dim())
        }
        (WorktreeState::Active, _) => (words.no_changes.to_owned(), theme.dim()),
    };
    let mut spans = vec![
        Span::styled(head, theme.accent()),
        Span::styled(" · ", theme.dim()),
        Span::styled(state, style),
    ];
    if worktree.state == WorktreeState::Active && !missing {
        spans.push(Span::styled("  /diff /merge /keep", theme.dim()));
    }
    Some(Line::from(spans))
}

fn base_of(app: &App, base: Option<&str>) -> String {
    base.map_or_else(|| app.words.worktree.detached.to_owned(), one_line)
}

/// The worktree panel over `area`: its title, its lines scrolled, its question below.
pub fn draw_worktree_panel(frame: &mut Frame<'_>, app: &App, panel: &WorktreePanel, area: Rect) {
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(app.theme.dim())
        .title(Span::styled(format!(" {} ", panel_title(app, panel)), app.theme.accent()));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let question = match &panel.shows {
        PanelShows::Merge(outcome) => wrap_all(&[question(app, outcome)], usize::from(inner.width)),
        PanelShows::Diff(_) => Vec::new(),
    };
    let asked = u16::try_from(question.len()).unwrap_or(u16::MAX);
    let [body, bottom] =
        Layout::vertical([Constraint::Min(1), Constraint::Length(asked)]).areas(inner);
    let lines = match &panel.shows {
        PanelShows::Diff(view) => diff_lines(app, view),
        PanelShows::Merge(outcome) => merge_lines(app, outcome),
    };
    draw_scrolled(frame, app, &lines, body, (panel.scroll, &panel.overflow));
    frame.render_widget(Paragraph::new(question), bottom);
}

fn panel_title(app: &App, panel: &WorktreePanel) -> String {
    let words = app.words.worktree;
    let (template, worktree, base) = match &panel.shows {
        PanelShows::Diff(view) => {
            (words.diff_title, &view.worktree.branch, view.worktree.base_branch.as_deref())
        }
        PanelShows::Merge(outcome) => {
            let squash = outcome.mode == preflight_engine::chat::MergeMode::Squash;
            let template = if squash { words.squash_title } else { words.merge_title };
            (template, &outcome.branch, Some(outcome.base.as_str()))
        }
    };
    fill(template, &[("branch", &one_line(worktree)), ("base", &base_of(app, base))])
}

fn diff_lines(app: &App, view: &WorktreeView) -> Vec<Line<'static>> {
    let words = app.words.worktree;
    if view.missing {
        return vec![Line::styled(words.refused_missing, app.theme.warn())];
    }
    if view.files.is_empty() {
        return vec![Line::styled(words.no_changes, app.theme.dim())];
    }
    let mut lines = vec![Line::styled(change_stat(app, &view.stat), app.theme.bold())];
    files(app, &view.files, view.truncated.map(|cut| cut.files_left_out), &mut lines);
    lines
}

fn files(app: &App, files: &[FileChange], left_out: Option<u32>, lines: &mut Vec<Line<'static>>) {
    for file in files {
        lines.push(Line::default());
        lines.extend(file_lines(app, file));
    }
    if let Some(left_out) = left_out {
        lines.push(Line::default());
        lines.push(Line::styled(
            fill(app.words.diff_left_out, &[("n", &left_out)]),
            app.theme.warn(),
        ));
    }
}

/// The preview: what stops the merge first, then the commit message, then the files.
fn merge_lines(app: &App, outcome: &MergeOutcome) -> Vec<Line<'static>> {
    let words = app.words.worktree;
    let theme = app.theme;
    let mut lines = Vec::new();
    let named = |list: &[String]| one_line(&list.join(", "));
    let base = one_line(&outcome.base);
    let stops: [(bool, String, Style); 3] = [
        (
            !outcome.conflicts.is_empty(),
            fill(words.conflicts, &[("files", &named(&outcome.conflicts))]),
            theme.bad(),
        ),
        (
            !outcome.checkout_changed.is_empty(),
            fill(words.checkout_changed, &[("files", &named(&outcome.checkout_changed))]),
            theme.bad(),
        ),
        (outcome.nothing_to_merge, fill(words.nothing_to_merge, &[("base", &base)]), theme.warn()),
    ];
    for (_, text, style) in stops.into_iter().filter(|(shown, ..)| *shown) {
        lines.push(Line::styled(text, style));
    }
    if !lines.is_empty() {
        lines.push(Line::default());
    }
    lines.push(Line::styled(words.message, theme.bold()));
    lines.extend(outcome.message.lines().map(|line| Line::raw(format!("  {}", one_line(line)))));
    if !outcome.files.is_empty() {
        lines.push(Line::default());
        lines.push(Line::styled(change_stat(app, &outcome.stat), theme.bold()));
        files(app, &outcome.files, outcome.truncated.map(|cut| cut.files_left_out), &mut lines);
    }
    lines
}

fn question(app: &App, outcome: &MergeOutcome) -> Line<'static> {
    let words = app.words.worktree;
    if !outcome.can_merge {
        return Line::styled(words.cannot_merge, app.theme.bad());
    }
    let squash = outcome.mode == preflight_engine::chat::MergeMode::Squash;
    let template = if squash { words.squash_ask } else { words.merge_ask };
    let values: [(&str, &dyn std::fmt::Display); 2] =
        [("files", &outcome.stat.files), ("base", &one_line(&outcome.base))];
    Line::styled(fill(template, &values), app.theme.warn())
}

/// The keys over the panel, for the hint line.
pub fn panel_keys(app: &App, panel: &WorktreePanel) -> Vec<(&'static str, &'static str)> {
    let words = app.words;
    match &panel.shows {
        PanelShows::Merge(outcome) if outcome.can_merge => vec![
            ("y", words.worktree.key_merge),
            ("n", words.worktree.key_cancel),
            ("↑↓", words.key_scroll),
        ],
        _ => vec![("↑↓", words.key_scroll), ("Esc", words.key_close)],
    }
}
