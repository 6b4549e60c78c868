//! Chats and their messages: the sidebar (list, create, rename, delete), the workspace
//! folder, plan-mode switches and models, the chat view, sending, editing, stopping, and
//! watching a chat's events.

use preflight_engine::agent::skills::SkillSet;
use preflight_engine::chat::{Chat, PastedImage};
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{
    ApiError, ChatPage, ChatPatch, ChatView, MessagePage, NewChat, SandboxView, SearchPage,
};
use preflight_engine::{ChatId, MessageId};
use tauri::ipc::Channel;
use tauri::{AppHandle, State};
use tauri_plugin_dialog::DialogExt;

use crate::shell::Shell;
use crate::watch;

type Answer<T> = Result<T, ApiError>;

/// A page of the sidebar's chats, newest first.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_chats(
    shell: State<'_, Shell>,
    limit: Option<u32>,
    cursor: Option<String>,
) -> Answer<ChatPage> {
    shell.engine()?.chat_page(limit, cursor.as_deref())
}

/// Titles and messages of every chat that hold the words, each hit with its snippet (Ctrl+K).
#[tauri::command(rename_all = "snake_case")]
pub async fn search_chats(
    shell: State<'_, Shell>,
    query: String,
    limit: Option<u32>,
    cursor: Option<String>,
) -> Answer<SearchPage> {
    shell.engine()?.search(&query, limit, cursor.as_deref())
}

/// A page of the chat's older messages (the message list scrolled up).
#[tauri::command(rename_all = "snake_case")]
pub async fn chat_messages(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    before: Option<String>,
    limit: Option<u32>,
) -> Answer<MessagePage> {
    shell.engine()?.message_page(&chat_id, before.as_deref(), limit)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn create_chat(shell: State<'_, Shell>, request: NewChat) -> Answer<Chat> {
    shell.engine()?.new_chat(request).await
}

/// The chat with the latest page of its messages, or those from `from` on (a search hit,
/// or the oldest message the window has loaded).
#[tauri::command(rename_all = "snake_case")]
pub async fn chat_view(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    from: Option<MessageId>,
) -> Answer<ChatView> {
    shell.engine()?.chat_view_from(&chat_id, from.as_ref())
}

/// The chat's code sandbox in its own words (the workspace bar's "Sandbox" button), and
/// whether bubblewrap confines it.
#[tauri::command(rename_all = "snake_case")]
pub async fn sandbox_info(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<SandboxView> {
    shell.engine()?.sandbox(&chat_id).await
}

/// Settings → Skills: the skills the chat's turns are shown (the user's own, then its
/// workspace's) with the folders left out; without a chat, the user's own.
#[tauri::command(rename_all = "snake_case")]
pub async fn list_skills(shell: State<'_, Shell>, chat_id: Option<ChatId>) -> Answer<SkillSet> {
    let engine = shell.engine()?;
    match chat_id {
        Some(chat_id) => engine.skills(&chat_id).await,
        None => Ok(engine.user_skills().await),
    }
}

/// "Use this environment": adopts the workspace's `.sandbox/venv` that an earlier Preflight
/// made, at the user's word (`confirm`); answers the sandbox as it stands afterwards.
#[tauri::command(rename_all = "snake_case")]
pub async fn adopt_venv(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    confirm: bool,
) -> Answer<SandboxView> {
    shell.engine()?.adopt_venv(&chat_id, confirm).await
}

/// Renames the chat, sets its workspace from a typed or pasted path (null clears it), flips
/// its plan-mode switches or chooses its models (a model the provider's section does not
/// list is asked of its server first): one checked write.
#[tauri::command(rename_all = "snake_case")]
pub async fn update_chat(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    patch: ChatPatch,
) -> Answer<Chat> {
    shell.engine()?.patch_chat(&chat_id, &patch).await
}

/// Opens the native folder picker; null when the user cancels it.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_workspace(
    app: AppHandle,
    shell: State<'_, Shell>,
    chat_id: ChatId,
) -> Answer<Option<Chat>> {
    let engine = shell.engine()?;
    engine.require_chat(&chat_id)?;
    let picked =
        app.dialog().file().set_title("Workspace folder for this chat").blocking_pick_folder();
    let Some(folder) = picked else { return Ok(None) };
    let path = folder
        .into_path()
        .map_err(|error| ApiError::bad_request(format!("that folder has no path: {error}")))?;
    engine.set_chat_workspace(&chat_id, Some(&path.to_string_lossy())).map(Some)
}

/// Opens the native folder picker in the chat's workspace and adds the folder chosen to the
/// chat's planning scope (DESIGN §14); null when the user cancels it. A folder outside the
/// workspace is refused by the engine's check, as a typed one is.
#[tauri::command(rename_all = "snake_case")]
pub async fn choose_scope(
    app: AppHandle,
    shell: State<'_, Shell>,
    chat_id: ChatId,
) -> Answer<Option<Chat>> {
    let engine = shell.engine()?;
    let chat = engine.chat_view(&chat_id)?.chat;
    let Some(workspace) = chat.workspace.clone() else {
        return Err(ApiError::bad_request("a scope needs a workspace: choose the folder first"));
    };
    let dialog = app.dialog().file().set_title("Limit planning to this folder");
    let picked = dialog.set_directory(&workspace).blocking_pick_folder();
    let Some(folder) = picked else { return Ok(None) };
    let path = folder
        .into_path()
        .map_err(|error| ApiError::bad_request(format!("that folder has no path: {error}")))?;
    let mut scope = chat.scope;
    scope.push(path.to_string_lossy().into_owned());
    let patch = ChatPatch { scope: Some(scope), ..ChatPatch::default() };
    engine.update_chat(&chat_id, &patch).map(Some)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn delete_chat(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<bool> {
    shell.engine()?.delete_chat(&chat_id).await
}

/// Forwards this chat's events to the window from now on (and stops forwarding the chat
/// watched before): `delta` over `deltas`, the rest as `chat-event`.
#[tauri::command(rename_all = "snake_case")]
pub async fn watch_chat(
    app: AppHandle,
    shell: State<'_, Shell>,
    chat_id: ChatId,
    deltas: Channel<Event>,
) -> Answer<()> {
    let events = shell.engine()?.subscribe(&chat_id)?;
    shell.watch(tauri::async_runtime::spawn(watch::forward(app, chat_id, events, deltas)));
    Ok(())
}

/// Sends a message with its files (paths) and the images pasted or dropped into the message
/// box (base64, as the engine takes them); a message with images to a model that cannot see
/// them is refused. `/NAME args` and `@server:uri` are resolved first (DESIGN §17).
#[tauri::command(rename_all = "snake_case")]
pub async fn send_message(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    content: String,
    files: Vec<String>,
    images: Option<Vec<PastedImage>>,
) -> Answer<ChatView> {
    let images = images.unwrap_or_default();
    shell.engine()?.send_typed(&chat_id, &content, files, images).await
}

#[tauri::command(rename_all = "snake_case")]
pub async fn edit_message(
    shell: State<'_, Shell>,
    chat_id: ChatId,
    message_id: MessageId,
    content: String,
) -> Answer<ChatView> {
    shell.engine()?.edit_message(&chat_id, &message_id, &content)
}

/// Continue: the executor resumes after it stopped with tasks left.
#[tauri::command(rename_all = "snake_case")]
pub async fn continue_work(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ChatView> {
    shell.engine()?.continue_work(&chat_id)
}

#[tauri::command(rename_all = "snake_case")]
pub async fn stop_turn(shell: State<'_, Shell>, chat_id: ChatId) -> Answer<ChatView> {
    shell.engine()?.stop(&chat_id).await
}
