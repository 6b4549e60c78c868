//! The open chat as the terminal holds it: its event stream, the chat created on the first
//! message or model choice, and reading it again after every engine call.

use preflight_engine::events::Event;
use preflight_engine::ids::ChatId;
use preflight_engine::lifecycle::{ApiError, ChatView, Engine, NewChat};
use tokio::sync::broadcast::Receiver;

use crate::app::state::App;

/// The chat's event stream, while a chat is open.
pub type Events = Option<Receiver<Event>>;

/// The open chat's id; a new chat is created first (with `--workspace`'s folder, in a
/// worktree of its own when `--worktree` or `config.toml` says so), and its events are
/// subscribed to before anything is sent, so none is missed.
pub(super) async fn open_new_chat(
    engine: &Engine,
    app: &mut App,
    events: &mut Events,
) -> Result<ChatId, ApiError> {
    if let Some(chat_id) = app.chat_id() {
        return Ok(chat_id.clone());
    }
    let request = NewChat {
        workspace: app.workspace.clone(),
        worktree: app.new_worktree,
        ..NewChat::default()
    };
    let chat = engine.new_chat(request).await?;
    *events = Some(engine.subscribe(&chat.id)?);
    load(engine, app, engine.chat_view(&chat.id)?)?;
    Ok(chat.id)
}

/// Reads the open chat again: its view (from the first message shown), its task list, the
/// servers' questions.
pub fn reload(engine: &Engine, app: &mut App) -> Result<(), ApiError> {
    let Some(chat_id) = app.chat_id().cloned() else { return Ok(()) };
    let view = engine.chat_view_from(&chat_id, app.from.as_ref())?;
    load(engine, app, view)
}

pub(super) fn load(engine: &Engine, app: &mut App, view: ChatView) -> Result<(), ApiError> {
    let tasks = engine.task_list(&view.chat.id)?;
    let elicitations = engine.elicitations(&view.chat.id)?;
    app.load(view, tasks, elicitations);
    Ok(())
}
