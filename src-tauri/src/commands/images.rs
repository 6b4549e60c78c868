//! Images the window shows (DESIGN §15): a chat's image attachments (the conversation's
//! thumbnails and the full image), and the image files the user picked or dropped (their
//! chips in the message box). Both answer raw bytes (an `ArrayBuffer` in the window, shown
//! through a `blob:` URL), never base64 in JSON; both are read-only and answer images only.
//! No asset protocol and no fs scope: these two commands are the window's only way to them.

use std::path::Path;

use preflight_engine::lifecycle::{image_file, ApiError};
use preflight_engine::ChatId;
use tauri::ipc::Response;
use tauri::State;

use super::app::blocking;
use crate::offered::Offered;
use crate::shell::Shell;

/// The chat's image attachment `name`, from its copy in `$PREFLIGHT_HOME/attachments/<chat>/`.
#[tauri::command(rename_all = "snake_case")]
pub async fn attachment_image(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    name: String,
) -> Result<Response, ApiError> {
    let engine = shell.engine()?;
    blocking(move || engine.attachment_image(&chat_id, &name)).await.map(Response::new)
}

/// The image file at `path`, for its chip: only a file the user picked or dropped.
#[tauri::command(rename_all = "snake_case")]
pub async fn image_preview(
    offered: State<'_, Offered>,
    path: String,
) -> Result<Response, ApiError> {
    if !offered.contains(Path::new(&path)) {
        return Err(ApiError::bad_request(format!(
            "{path:?} was not picked or dropped: only those are shown"
        )));
    }
    blocking(move || image_file(&path)).await.map(Response::new)
}
