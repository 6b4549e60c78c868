//! Settings → MCP servers: the servers of `mcp.json` with their state, changes to them (each
//! validated by the engine's start-up rules before `mcp.json` is written), and signing in to
//! and out of remote servers.

use preflight_engine::lifecycle::{ApiError, McpServerSave, McpSettings, McpTool};
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn mcp_settings(shell: State<'_, Shell>) -> Answer<McpSettings> {
    shell.engine()?.mcp_settings().await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn save_mcp_server(shell: State<'_, Shell>, save: McpServerSave) -> Answer<McpSettings> {
    shell.engine()?.save_mcp_server(save).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn remove_mcp_server(shell: State<'_, Shell>, name: String) -> Answer<McpSettings> {
    shell.engine()?.remove_mcp_server(&name).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn restart_mcp_server(shell: State<'_, Shell>, name: String) -> Answer<McpSettings> {
    shell.engine()?.restart_mcp_server(&name).await
}

/// Starts the entry on its own and lists its tools; nothing is saved.
#[tauri::command(rename_all = "snake_case")]
pub async fn test_mcp_server(shell: State<'_, Shell>, save: McpServerSave) -> Answer<Vec<McpTool>> {
    shell.engine()?.test_mcp_server(save).await
}

/// Starts signing in to the remote server `name` and opens the authorization page in the
/// browser; returns its address, for the window to show (and copy) in case no browser
/// opened. `mcp_settings` tells when the browser came back.
#[tauri::command(rename_all = "snake_case")]
pub async fn mcp_sign_in(shell: State<'_, Shell>, name: String) -> Answer<String> {
    let url = shell.engine()?.sign_in_mcp_server(&name).await?;
    if let Err(error) = super::reveal::open_web_page(&url) {
        // The window shows the link to open by hand.
        tracing::warn!(server = %name, %error, "the browser could not be started for sign-in");
    }
    Ok(url)
}

/// Forgets the server's tokens and restarts it.
#[tauri::command(rename_all = "snake_case")]
pub async fn mcp_sign_out(shell: State<'_, Shell>, name: String) -> Answer<McpSettings> {
    shell.engine()?.sign_out_mcp_server(&name).await
}
