//! A server's questions to the user during execution (MCP elicitation): the chat's open
//! ones (after a reload), the user's answer, and opening a URL question's page in the
//! browser once the user clicked "Open".

use preflight_engine::lifecycle::{ApiError, Elicitation};
use preflight_engine::mcp::{Answer as ServerAnswer, Question};
use preflight_engine::ChatId;
use tauri::State;

use crate::shell::Shell;

type Answer<T> = Result<T, ApiError>;

#[tauri::command(rename_all = "snake_case")]
pub async fn list_elicitations(
    shell: State<'_, Shell>,
    chat_id: ChatId,
) -> Answer<Vec<Elicitation>> {
    shell.engine()?.elicitations(&chat_id)
}

/// Accept (with the form's content), decline or cancel. A form that does not fit the
/// server's schema is `ERR_BAD_REQUEST` and the question stays open.
#[tauri::command(rename_all = "snake_case")]
pub async fn answer_elicitation(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    id: String,
    answer: ServerAnswer,
) -> Answer<()> {
    shell.engine()?.answer_elicitation(&chat_id, &id, answer)
}

/// Opens the page of the chat's open URL question `id` and returns its address. The URL
/// comes from the engine's list, never from the window, so this opens nothing else.
#[tauri::command(rename_all = "snake_case")]
pub async fn open_elicitation_url(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    id: String,
) -> Answer<String> {
    let open = shell.engine()?.elicitations(&chat_id)?;
    let url = open
        .into_iter()
        .find(|elicitation| elicitation.id == id)
        .and_then(|elicitation| match elicitation.question {
            Question::Url { url, .. } => Some(url),
            Question::Form { .. } => None,
        })
        .ok_or_else(|| ApiError::bad_request(format!("no open URL question {id} in this chat")))?;
    super::reveal::open_web_page(&url)?;
    Ok(url)
}
