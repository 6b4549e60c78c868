//! Build script of the desktop shell: generates Tauri's context from the root
//! `tauri.conf.json`, and an `allow-<command>` permission for each of our commands (the
//! capability in `capabilities/default.json` grants exactly those; see `src/commands/mod.rs`).

use std::path::Path;

/// The same list as `src/commands/mod.rs` `NAMES` (a test there compares them).
const COMMANDS: &[&str] = &[
    "app_info",
    "ui_ready",
    "get_settings",
    "save_settings",
    "list_chats",
    "create_chat",
    "chat_view",
    "rename_chat",
    "set_chat_workspace",
    "choose_workspace",
    "delete_chat",
    "watch_chat",
    "send_message",
    "edit_message",
    "stop_turn",
    "answer_question",
    "approve_plan",
    "reject_plan",
    "cancel_plan",
    "edit_plan",
    "plan_revisions",
    "task_list",
];

fn main() {
    // The window serves `ui/dist` (embedded at compile time); rebuild when it changes.
    println!("cargo:rerun-if-changed=../ui/dist");
    if !Path::new("../ui/dist/index.html").exists() {
        // Otherwise `generate_context!` panics with a less helpful message.
        panic!("ui/dist is not built: run `npm ci && npm run build` in ui/ first");
    }
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json").app_manifest(manifest);
    tauri_build::try_build(attributes).expect("tauri-build failed (is ../tauri.conf.json valid?)");
}
