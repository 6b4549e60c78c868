//! The Preflight desktop shell: opens the main window over the built `ui/`; a thin adapter over the engine.

// No console window behind the app in Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

fn main() {
    tauri::Builder::default()
        .run(tauri::generate_context!("../tauri.conf.json"))
        .expect("the Preflight desktop app failed to run");
}
