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
        let mut opened = shell.opened();
        loop {
            opened.borrow_and_update();
            let Ok(engine) = shell.engine() else {
                if opened.changed().await.is_err() {
                    return;
                }
                continue;
            };
            let mut changes = engine.phase_changes();
            send_running(&app, engine.running_chats());
            loop {
                tokio::select! {
                    change = changes.next() => match change {
                        Some(Ok(phase)) => { let _ = app.emit_to(WINDOW, CHAT_PHASE, phase); }
                        Some(Err(_)) => send_running(&app, engine.running_chats()),
                        None => break,
                    },
                    changed = opened.changed() => match changed {
                        Ok(()) => break,
                        Err(_) => return,
                    },
                }
            }
        }
    });
}

fn send_running(app: &AppHandle, running: Vec<ChatPhase>) {
    let _ = app.emit_to(WINDOW, CHATS_RUNNING, running);
}
