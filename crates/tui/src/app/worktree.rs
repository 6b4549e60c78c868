//! A chat in its own git worktree (DESIGN §18), as typed: `/diff`, `/merge [squash]`, `/keep`
//! and `/recreate`; and the keys over the worktree panel: ↑↓ PgUp PgDn scroll, y on a merge
//! preview that can merge merges as it said, any other key closes it.

use crossterm::event::KeyCode;
use preflight_engine::chat::MergeMode;

use crate::app::command::Command;
use crate::app::state::{App, PanelShows};

/// Lines one PgUp/PgDn moves in the panel.
const PAGE: usize = 10;

/// The worktree command `word` (its argument `rest`) names, if it is one.
pub fn worktree_command(word: &str, rest: &str) -> Option<Command> {
    let command = match word {
        "/diff" => Command::WorktreeDiff,
        "/merge" if rest.trim() == "squash" => Command::PreviewMerge(MergeMode::Squash),
        "/merge" => Command::PreviewMerge(MergeMode::Merge),
        "/keep" => Command::KeepBranch,
        "/recreate" => Command::RecreateWorktree,
        _ => return None,
    };
    Some(command)
}

/// A key over the worktree panel.
pub fn panel_key(app: &mut App, code: KeyCode) -> Option<Command> {
    let panel = app.worktree_panel.as_mut()?;
    let most = panel.overflow.get();
    match code {
        KeyCode::Up => panel.scroll = panel.scroll.min(most).saturating_sub(1),
        KeyCode::Down => panel.scroll = (panel.scroll + 1).min(most),
        KeyCode::PageUp => panel.scroll = panel.scroll.min(most).saturating_sub(PAGE),
        KeyCode::PageDown => panel.scroll = (panel.scroll + PAGE).min(most),
        KeyCode::Char('y' | 'Y' | 'д' | 'Д') => {
            let merge = match &panel.shows {
                PanelShows::Merge(outcome) if outcome.can_merge => Some(outcome.mode),
                _ => None,
            };
            app.worktree_panel = None;
            return merge.map(Command::Merge);
        }
        _ => app.worktree_panel = None,
    }
    None
}
