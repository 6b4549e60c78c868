//! The app itself: what the window asks first, the settings screen, the start-up figure.

use preflight_engine::lifecycle::ApiError;
use preflight_engine::lifecycle::{
    check_provider as check, read_settings, system_key_stores, write_settings, AppSettings,
    ProviderCheck, SettingsUpdate,
};
use preflight_engine::llm::KeyLookup;
use tauri::State;

use crate::ipc::AppInfo;
use crate::shell::{since_start_ms, Shell};

#[tauri::command(rename_all = "snake_case")]
pub async fn app_info(shell: State<'_, Shell>) -> Result<AppInfo, ApiError> {
    let dir = shell.models.dir().to_owned();
    let models = super::models::embedded_models(&dir);
    Ok(AppInfo {
        version: env!("CARGO_PKG_VERSION").to_owned(),
        home: shell.home.to_string_lossy().into_owned(),
        startup_error: shell.startup_error(),
        models_dir: dir.to_string_lossy().into_owned(),
        models,
    })
}

/// The window calls this once its first screen is interactive: milliseconds since `main`
/// began, also logged (the cold-start figure).
#[tauri::command(rename_all = "snake_case")]
pub async fn ui_ready() -> Result<u64, ApiError> {
    let elapsed = since_start_ms();
    tracing::info!(elapsed_ms = elapsed, "window interactive");
    Ok(elapsed)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn get_settings(shell: State<'_, Shell>) -> Result<AppSettings, ApiError> {
    let home = shell.home.clone();
    blocking(move || read_settings(&home, &system_key_stores())).await
}

/// Saves the settings (the key to the OS key store), then re-opens the engine on them.
#[tauri::command(rename_all = "snake_case")]
pub async fn save_settings(
    shell: State<'_, Shell>,
    update: SettingsUpdate,
) -> Result<AppSettings, ApiError> {
    let home = shell.home.clone();
    let saved = blocking(move || write_settings(&home, &update, &system_key_stores())).await?;
    shell.reopen().await?;
    Ok(saved)
}

/// Settings' "Test connection": the form's provider asked for its models; nothing is saved.
#[tauri::command(rename_all = "snake_case")]
pub async fn check_provider(update: SettingsUpdate) -> Result<ProviderCheck, ApiError> {
    check(update, KeyLookup::system(|name| std::env::var(name).ok())).await
}

/// Key stores may block on D-Bus: off the async workers.
pub(super) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tauri::async_runtime::spawn_blocking(work).await.unwrap_or_else(|error| {
        Err(ApiError::internal(format!("the settings task failed: {error}")))
    })
}
