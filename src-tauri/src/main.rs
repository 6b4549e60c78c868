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
    prefer_cpu_painting_without_gpu();
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

/// Without a GPU (no DRM render node: a VM, Xvfb), WebKitGTK's accelerated compositing runs
/// on software GL and every repaint costs tens of milliseconds; its CPU painting path is far
/// cheaper there (measured: frames p95 ~100 ms → ~21 ms while tokens stream, and ~70 MB less
/// memory). A value the user set either way is kept. Runs before any thread or GTK starts.
fn prefer_cpu_painting_without_gpu() {
    const VARIABLE: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    let has_gpu = std::fs::read_dir("/dev/dri")
        .map(|entries| entries.flatten().any(|entry| entry.file_name().to_string_lossy().starts_with("renderD")))
        .unwrap_or(false);
    if !has_gpu && std::env::var_os(VARIABLE).is_none() {
        std::env::set_var(VARIABLE, "1");
        tracing::info!("no GPU render node: WebKit paints on the CPU ({VARIABLE}=1)");
    }
}

/// Logs go to stderr (`RUST_LOG`, default `info`).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt().with_env_filter(filter).with_ansi(false).with_writer(std::io::stderr).init();
}
