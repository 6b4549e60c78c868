//! The checkpoints of a chat's workspace (issue 31): the list with each task's figures, a
//! diff between two, what a restore would change, and the restore.

use preflight_engine::lifecycle::{
    ApiError, ChatView, CheckpointDiff, CheckpointList, RestorePreview, RestoreRequest,
};
use preflight_engine::ChatId;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn list_checkpoints(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<CheckpointList> {
    shell.engine()?.checkpoints(&chat_id).await
}

/// From checkpoint `from` to `to` (the latest when absent).
#[tauri::command(rename_all = "snake_case")]
pub async fn checkpoint_diff(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    from: u32,
    to: Option<u32>,
) -> Answer<CheckpointDiff> {
    shell.engine()?.checkpoint_diff(&chat_id, from, to).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn restore_preview(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    checkpoint: u32,
) -> Answer<RestorePreview> {
    shell.engine()?.restore_preview(&chat_id, checkpoint).await
}

/// After the user confirmed the preview whose `digest` is given; `overwrite` also replaces
/// their own changes.
#[tauri::command(rename_all = "snake_case")]
pub async fn restore_checkpoint(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    checkpoint: u32,
    digest: String,
    overwrite: Option<bool>,
) -> Answer<ChatView> {
    let request = RestoreRequest { digest, overwrite_user_changes: overwrite.unwrap_or(false) };
    shell.engine()?.restore_checkpoint(&chat_id, checkpoint, request).await
}
