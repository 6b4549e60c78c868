//! Fork from the window (DESIGN §15): from a message's menu, or from a task's checkpoint with
//! its files copied into a folder the user chooses in the native folder dialog (opened from
//! Rust: the window has no dialog permission). The fork itself is the engine's.

use std::path::Path;

use preflight_engine::lifecycle::{ApiError, ChatView, ForkRequest};
use preflight_engine::ChatId;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

/// Opens the native folder dialog for the folder a fork's copy of a checkpoint goes into (an
/// empty one, or one made in the dialog), starting beside the chat's workspace, where a copy
/// of it naturally goes; the path chosen, or null when cancelled.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_fork_folder(
    app: AppHandle,
    shell: State<'_, Shell>,
    chat_id: ChatId,
) -> Answer<Option<String>> {
    let workspace = shell.engine()?.chat_view(&chat_id)?.chat.workspace;
    let mut dialog = app.dialog().file().set_title("An empty folder for the fork's files");
    if let Some(beside) = workspace.as_deref().map(Path::new).and_then(Path::parent) {
        dialog = dialog.set_directory(beside);
    }
    let Some(folder) = dialog.blocking_pick_folder() else { return Ok(None) };
    let path = folder
        .into_path()
        .map_err(|error| ApiError::bad_request(format!("that folder has no path: {error}")))?;
    Ok(Some(path.to_string_lossy().into_owned()))
}

/// Forks the chat as `request` says and answers the new chat's view (it sends no event: the
/// window reads the chat list again and opens the fork).
#[tauri::command(rename_all = "snake_case")]
pub async fn fork_chat(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    request: ForkRequest,
) -> Answer<ChatView> {
    shell.engine()?.fork_chat(&chat_id, request).await
}
