//! A chat's own git worktree (DESIGN §18): its diff against where it started, Merge with its
//! preview, Keep as branch and Recreate, each a call of the engine.

use preflight_engine::chat::Chat;
use preflight_engine::lifecycle::{ApiError, ChatPhase, MergeOutcome, MergeRequest, WorktreeView};
use preflight_engine::ChatId;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn worktree_view(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<WorktreeView> {
    shell.engine()?.worktree_view(&chat_id).await
}

/// `preview: true` only says what the merge would do; otherwise it merges, or refuses with
/// nothing changed.
#[tauri::command(rename_all = "snake_case")]
pub async fn merge_chat(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    request: MergeRequest,
) -> Answer<MergeOutcome> {
    shell.engine()?.merge_chat(&chat_id, request).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn keep_chat_branch(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<Chat> {
    shell.engine()?.keep_chat_branch(&chat_id).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn recreate_worktree(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<Chat> {
    shell.engine()?.recreate_worktree(&chat_id).await
}

/// The chats whose turn runs now (the chat list's "working" marks; `chat-phase` events
/// follow each change).
#[tauri::command(rename_all = "snake_case")]
pub async fn running_chats(shell: State<'_, Shell>) -> Answer<Vec<ChatPhase>> {
    Ok(shell.engine()?.running_chats())
}
