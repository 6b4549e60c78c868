//! Every chat's phase, followed for the life of the app and sent to the window as
//! `chat-phase` events, so the chat list shows which chats work now (several run at once,
//! DESIGN §18); after falling behind, the running chats are sent again (`chats-running`).

use preflight_engine::lifecycle::ChatPhase;
use tauri::{AppHandle, Emitter, Manager};

use crate::shell::Shell;

const WINDOW: &str = "main";
/// One chat's phase changed.
const CHAT_PHASE: &str = "chat-phase";
/// Every chat running now (the rest are not): after a fall behind or a new engine.
const CHATS_RUNNING: &str = "chats-running";

/// Follows the phases on the engine open now (a new one after the settings re-open it).
pub fn follow(app: AppHandle) {
    tauri::async_runtime::spawn(async move {
        let shell = app.state::<Shell>();
        let app = &app;
        shell
            .each_engine(|engine| async move {
                let mut changes = engine.phase_changes();
                send_running(app, engine.running_chats());
                while let Some(change) = changes.next().await {
                    match change {
                        Ok(phase) => {
                            let _ = app.emit_to(WINDOW, CHAT_PHASE, phase);
                        }
                        Err(_) => send_running(app, engine.running_chats()),
                    }
                }
            })
            .await;
    });
}

fn send_running(app: &AppHandle, running: Vec<ChatPhase>) {
    let _ = app.emit_to(WINDOW, CHATS_RUNNING, running);
}
