//! Forwards one chat's engine events to the window: executor tokens (`delta`) over the
//! `Channel` the window passed in, everything else as the `chat-event` Tauri event.
//!
//! Tokens are coalesced: consecutive deltas of one message that arrive within
//! [`DELTA_WINDOW`] travel as one `delta` with their texts joined, so a fast model (hundreds
//! of tokens a second) costs the window tens of IPC messages a second, not hundreds. Order
//! is kept: pending text is sent before any other event.

use std::time::Duration;

use preflight_engine::events::Event;
use preflight_engine::{ChatId, MessageId};
use tauri::ipc::Channel;
use tauri::{AppHandle, Emitter};
use tokio::sync::broadcast::{error::RecvError, Receiver};

use crate::ipc::{ChatEvent, ChatRef, CHAT_EVENT, CHAT_RESYNC};

/// The main window's label (`tauri.conf.json`).
const WINDOW: &str = "main";
/// How long the first token of a batch may wait for more (about one frame).
const DELTA_WINDOW: Duration = Duration::from_millis(16);

/// Runs until the chat's stream ends (the chat was deleted), the window drops the channel,
/// or the shell replaces this forwarder.
pub async fn forward(
    app: AppHandle,
    chat_id: ChatId,
    mut events: Receiver<Event>,
    deltas: Channel<Event>,
) {
    let mut next = events.recv().await;
    loop {
        let event = match next {
            Ok(Event::Delta { message_id, text }) => {
                let (batch, after) = coalesce(&mut events, message_id, text).await;
                if deltas.send(batch).is_err() {
                    return;
                }
                next = match after {
                    Some(event) => event,
                    None => events.recv().await,
                };
                continue;
            }
            Ok(event) => event,
            // The window missed events: it reloads the chat from the store.
            Err(RecvError::Lagged(_)) => {
                let _ = app.emit_to(WINDOW, CHAT_RESYNC, ChatRef { chat_id: chat_id.clone() });
                next = events.recv().await;
                continue;
            }
            Err(RecvError::Closed) => return,
        };
        let _ = app.emit_to(WINDOW, CHAT_EVENT, ChatEvent { chat_id: chat_id.clone(), event });
        next = events.recv().await;
    }
}

/// Joins the deltas of `message_id` arriving within the window; returns the batch and the
/// first event that is not part of it, if one came (to be handled next).
async fn coalesce(
    events: &mut Receiver<Event>,
    message_id: MessageId,
    mut text: String,
) -> (Event, Option<Result<Event, RecvError>>) {
    let deadline = tokio::time::Instant::now() + DELTA_WINDOW;
    let after = loop {
        match tokio::time::timeout_at(deadline, events.recv()).await {
            Ok(Ok(Event::Delta { message_id: id, text: more })) if id == message_id => {
                text.push_str(&more)
            }
            Ok(other) => break Some(other),
            Err(_elapsed) => break None,
        }
    };
    (Event::Delta { message_id, text }, after)
}
