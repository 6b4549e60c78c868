//! The Preflight desktop shell: the engine runs in this process and the window talks to it
//! over Tauri IPC (commands, a `Channel` for executor tokens, events for the rest). A thin
//! adapter like `preflight serve`: no product logic lives here.

// No console window behind the app in Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod home;
mod ipc;
mod shell;
mod watch;

use tauri::Manager;

fn main() {
    shell::mark_process_start();
    init_logging();
    let shell = match shell::Shell::start() {
        Ok(shell) => shell,
        Err(error) => {
            eprintln!("preflight-desktop: {error}");
            std::process::exit(1);
        }
    };
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .manage(shell)
        .invoke_handler(commands::handler())
        .build(tauri::generate_context!("../tauri.conf.json"))
        .expect("the Preflight window could not be built");
    app.run(|app, event| {
        if let tauri::RunEvent::Exit = event {
            // Stops running turns and the MCP servers (their process groups) before exit.
            tauri::async_runtime::block_on(app.state::<shell::Shell>().shutdown());
        }
    });
}

/// Logs go to stderr (`RUST_LOG`, default `info`).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(std::io::stderr).init();
}
