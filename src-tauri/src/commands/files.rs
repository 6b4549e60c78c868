//! Attaching files from the window: the native picker, and the check of dropped paths
//! (the same rules a send applies, so a chip shows what will be refused before sending, and
//! which files are images).

use preflight_engine::lifecycle::ApiError;
use preflight_engine::lifecycle::{check_file, PickedFile};
use std::path::PathBuf;

use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use crate::offered::Offered;

/// Opens the native picker for one or more files; none when the user cancels it. The files
/// picked are offered: an image among them may be shown on its chip (`image_preview`).
#[tauri::command(rename_all = "snake_case")]
pub async fn pick_files(
    app: AppHandle,
    offered: State<'_, Offered>,
) -> Result<Vec<PickedFile>, ApiError> {
    let picked = app.dialog().file().set_title("Attach files").blocking_pick_files();
    let paths: Vec<PathBuf> =
        picked.unwrap_or_default().into_iter().filter_map(|file| file.into_path().ok()).collect();
    offered.offer(paths.iter().map(PathBuf::as_path));
    Ok(describe(paths.iter().map(|path| path.to_string_lossy().into_owned()).collect()).await)
}

/// Checks paths dropped on the window.
#[tauri::command(rename_all = "snake_case")]
pub async fn check_files(paths: Vec<String>) -> Result<Vec<PickedFile>, ApiError> {
    Ok(describe(paths).await)
}

async fn describe(paths: Vec<String>) -> Vec<PickedFile> {
    let checks = tauri::async_runtime::spawn_blocking(move || {
        paths.iter().map(|path| check_file(path)).collect::<Vec<_>>()
    });
    checks.await.unwrap_or_default()
}
