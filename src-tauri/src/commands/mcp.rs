//! Settings → MCP servers: the servers of `mcp.json` with their state, and changes to them
//! (each validated by the engine's start-up rules before `mcp.json` is written).

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
