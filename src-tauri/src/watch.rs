//! Forwards one chat's engine events to the window: executor tokens (`delta`) over the
//! `Channel` the window passed in, everything else as the `chat-event` Tauri event.

use preflight_engine::events::Event;
use tauri::ipc::Channel;
use tauri::{AppHandle, Emitter};
use tokio::sync::broadcast::{error::RecvError, Receiver};

use crate::ipc::{ChatEvent, ChatRef, CHAT_EVENT, CHAT_RESYNC};

/// The main window's label (`tauri.conf.json`).
const WINDOW: &str = "main";

/// Runs until the chat's stream ends (the chat was deleted), the window drops the channel,
/// or the shell replaces this forwarder.
pub async fn forward(app: AppHandle, chat_id: String, mut events: Receiver<Event>, deltas: Channel<Event>) {
    loop {
        match events.recv().await {
            Ok(event @ Event::Delta { .. }) => {
                if deltas.send(event).is_err() {
                    return;
                }
            }
            Ok(event) => {
                let _ = app.emit_to(WINDOW, CHAT_EVENT, ChatEvent { chat_id: chat_id.clone(), event });
            }
            // The window missed events: it reloads the chat from the store.
            Err(RecvError::Lagged(_)) => {
                let _ = app.emit_to(WINDOW, CHAT_RESYNC, ChatRef { chat_id: chat_id.clone() });
            }
            Err(RecvError::Closed) => return,
        }
    }
}
