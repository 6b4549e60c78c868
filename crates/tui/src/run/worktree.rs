//! A chat in its own git worktree (DESIGN §18) through the engine's calls the window and the
//! API make: its changes since it started (`/diff`), the merge's preview and the merge
//! (`/merge`, y), keeping it as a branch (`/keep`), its folder made again (`/recreate`); the
//! worktree's line read again after each; and the engine's refusals said in words.

use preflight_engine::chat::{MergeMode, Worktree};
use preflight_engine::ids::ChatId;
use preflight_engine::lifecycle::{ApiError, Engine, ErrorCode, MergeRequest};

use crate::app::command::Command;
use crate::app::state::{App, PanelShows, WorktreePanel};
use crate::locale::{fill, Words};
use crate::view::worktree::short;

/// Carries out a worktree command on the open chat; one without a worktree is told so.
pub(super) async fn worktree_action(
    engine: &Engine,
    app: &mut App,
    command: Command,
) -> Result<(), ApiError> {
    let words = app.words.worktree;
    let Some((chat_id, worktree)) = open_worktree(app) else {
        app.notice = Some(words.none.to_owned());
        return Ok(());
    };
    match command {
        Command::WorktreeDiff => {
            let view = engine.worktree_view(&chat_id).await?;
            app.worktree = Some(view.clone());
            app.worktree_panel = Some(WorktreePanel::new(PanelShows::Diff(Box::new(view))));
        }
        Command::PreviewMerge(mode) => {
            let outcome = engine.merge_chat(&chat_id, request(mode, true, None)).await?;
            app.worktree_panel = Some(WorktreePanel::new(PanelShows::Merge(Box::new(outcome))));
        }
        Command::Merge(mode) => {
            // The preview's digest goes back: what changed since it is not merged unseen.
            let digest = match app.worktree_panel.take().map(|panel| panel.shows) {
                Some(PanelShows::Merge(outcome)) => Some(outcome.digest),
                _ => None,
            };
            let outcome = engine.merge_chat(&chat_id, request(mode, false, digest)).await?;
            let commit = short(outcome.commit.as_deref().unwrap_or_default());
            let values: [(&str, &dyn std::fmt::Display); 2] =
                [("base", &outcome.base), ("commit", &commit)];
            app.info = Some(fill(words.merged_info, &values));
        }
        Command::KeepBranch => {
            engine.keep_chat_branch(&chat_id).await?;
            app.info = Some(fill(words.kept_info, &[("branch", &worktree.branch)]));
        }
        Command::RecreateWorktree => {
            engine.recreate_worktree(&chat_id).await?;
            app.info = Some(fill(words.recreated_info, &[("branch", &worktree.branch)]));
        }
        _ => {}
    }
    Ok(())
}

fn open_worktree(app: &App) -> Option<(ChatId, Worktree)> {
    let chat = &app.chat.as_ref()?.chat;
    Some((chat.id.clone(), chat.worktree.clone()?))
}

fn request(mode: MergeMode, preview: bool, digest: Option<String>) -> MergeRequest {
    MergeRequest { mode: Some(mode), preview: Some(preview), digest }
}

/// Reads the open chat's worktree and its changes again (none when the chat has none, or
/// git could not tell: the line then shows the branch alone).
pub async fn refresh_worktree(engine: &Engine, app: &mut App) {
    let chat = app.chat.as_ref().map(|view| &view.chat);
    let chat_id = chat.filter(|chat| chat.worktree.is_some()).map(|chat| chat.id.clone());
    app.worktree = match chat_id {
        Some(chat_id) => engine.worktree_view(&chat_id).await.ok(),
        None => None,
    };
}

/// An engine error in the user's words: the worktree's refusals by their codes (each says
/// what to do), anything else as the engine said it.
pub fn said(words: &Words, error: &ApiError) -> String {
    let words = words.worktree;
    match error.code {
        ErrorCode::WorktreeMissing => words.refused_missing.to_owned(),
        ErrorCode::MergeConflicts => words.refused_conflicts.to_owned(),
        ErrorCode::CheckoutChanged => words.refused_checkout.to_owned(),
        ErrorCode::MergeRefused => words.refused_merge.to_owned(),
        ErrorCode::Worktree => fill(words.refused_git, &[("why", &error.message)]),
        _ => error.message.clone(),
    }
}
