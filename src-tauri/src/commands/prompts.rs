//! What a chat's MCP servers offer the message box (DESIGN §17): their prompts for the slash
//! menu (`/NAME args`) and their resources for the @ menu (`@server:uri`).

use preflight_engine::lifecycle::ApiError;
use preflight_engine::mcp::{PromptList, ResourceList};
use preflight_engine::ChatId;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

/// The prompts of the chat's servers, with their arguments and the command that uses each.
#[tauri::command(rename_all = "snake_case")]
pub async fn chat_prompts(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<PromptList> {
    shell.engine()?.prompts(&chat_id).await
}

/// The resources the chat's next turn may read, each with the `@server:uri` that attaches it.
#[tauri::command(rename_all = "snake_case")]
pub async fn chat_resources(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ResourceList> {
    shell.engine()?.resources(&chat_id).await
}
