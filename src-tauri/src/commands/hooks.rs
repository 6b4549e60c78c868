//! Settings → Hooks: the user's hooks that run, the files with errors, and each workspace's
//! hooks file with the user's trust (DESIGN §17).

use preflight_engine::hooks::HooksView;
use preflight_engine::lifecycle::ApiError;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn hooks_settings(shell: State<'_, Shell>) -> Answer<HooksView> {
    shell.engine()?.hooks()
}

/// Trusts `workspace` for hooks (its `.preflight/hooks.json` runs), or stops trusting it.
#[tauri::command(rename_all = "snake_case")]
pub async fn trust_hooks(
    shell: State<'_, Shell>,
    workspace: String,
    trusted: bool,
) -> Answer<HooksView> {
    shell.engine()?.trust_hooks(&workspace, trusted)
}
