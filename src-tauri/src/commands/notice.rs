//! Settings → Notifications: whether notifications are raised, with a sound or without, and
//! their words in the window's language (`notice.rs` raises them).

use preflight_engine::lifecycle::ApiError;
use tauri::State;

use crate::ipc::NoticeSettings;
use crate::notice::Notices;

#[tauri::command(rename_all = "snake_case")]
pub async fn set_notice_settings(
    notices: State<'_, Notices>,
    settings: NoticeSettings,
) -> Result<(), ApiError> {
    notices.set(settings);
    Ok(())
}
