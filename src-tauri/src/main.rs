//! The Preflight desktop shell: the engine runs in this process and the window talks to it
//! over Tauri IPC (commands, a `Channel` for executor tokens, events for the rest). A thin
//! adapter like `preflight serve`: no product logic lives here.

// No console window behind the app in Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

mod commands;
mod home;
mod ipc;
#[cfg(target_os = "linux")]
mod nospeech;
mod notice;
mod offered;
mod phases;
mod shell;
mod single;
mod watch;

use tauri::Manager;

fn main() {
    shell::mark_process_start();
    init_logging();
    // First: it may execute this program again, and the probes below need not run twice.
    #[cfg(target_os = "linux")]
    nospeech::use_silent_speech();
    prefer_cpu_painting_without_gpu();
    skip_javascript_optimising_jit();
    let shell = match shell::Shell::start() {
        Ok(shell) => shell,
        Err(shell::StartError::AlreadyOpen) => {
            eprintln!("preflight-desktop: Preflight is already open on this data folder: its window is in front");
            std::process::exit(0);
        }
        Err(shell::StartError::Fatal(error)) => {
            eprintln!("preflight-desktop: {error}");
            std::process::exit(1);
        }
    };
    let app = tauri::Builder::default()
        .plugin(tauri_plugin_dialog::init())
        .setup(|app| {
            let shell = app.state::<shell::Shell>();
            if shell.holds_home() {
                if let Err(error) = single::listen(&shell.home, app.handle().clone()) {
                    tracing::warn!(%error, "later starts cannot bring this window to the front");
                }
            }
            notice::follow(app.handle().clone());
            phases::follow(app.handle().clone());
            Ok(())
        })
        .manage(shell)
        .manage(offered::Offered::default())
        .manage(notice::Notices::default())
        // Files dropped on the window are offered as the shell saw them (`offered.rs`), in
        // the turn of the event loop that tells the window: before any command about them.
        .on_window_event(|window, event| {
            if let tauri::WindowEvent::DragDrop(tauri::DragDropEvent::Drop { paths, .. }) = event {
                window.state::<offered::Offered>().offer(paths.iter().map(|p| p.as_path()));
            }
        })
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
        .map(|entries| {
            entries
                .flatten()
                .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
        })
        .unwrap_or(false);
    if has_gpu {
        return;
    }
    if std::env::var_os(VARIABLE).is_none() {
        std::env::set_var(VARIABLE, "1");
        tracing::info!("no GPU render node: WebKit paints on the CPU ({VARIABLE}=1)");
    }
    if std::env::var_os(VARIABLE).is_some_and(|value| value != "0") {
        keep_software_gl_out_of_this_process();
    }
}

/// JavaScriptCore's optimising DFG JIT holds ~3.5 MB of the web process's memory from the
/// start (measured, idle PSS: 118.7 → 115.1 MB) and buys this UI nothing visible: with the
/// baseline JIT alone, frames while 500 tokens/s stream stay at p95 18 ms, max 31-34 ms
/// (measured, no GPU). WebKit's processes inherit the environment. A value the user set is
/// kept. Runs before any thread starts (it changes the environment).
fn skip_javascript_optimising_jit() {
    const VARIABLE: &str = "JSC_useDFGJIT";
    if std::env::var_os(VARIABLE).is_none() {
        std::env::set_var(VARIABLE, "false");
    }
}

/// With CPU painting this process draws the web process's pictures with cairo and needs no
/// GL, yet two probes would load Mesa's software driver here (libLLVM and llvmpipe: ~27 MB
/// of PSS, measured): GTK's GLX visual probe when the display opens, and WebKit's EGL probe
/// before it starts the web process. `GDK_GL=disable` stops the first; the second is stopped
/// by initialising libglvnd's EGL (loaded already, with WebKit) while its vendor list names
/// no file, then restoring the environment, so no child inherits it: the web process, which
/// needs its EGL display, still loads Mesa. Values the user set are kept. Linux only; must
/// run before any other thread exists (it changes the environment).
#[cfg(target_os = "linux")]
fn keep_software_gl_out_of_this_process() {
    use std::ffi::{c_char, c_int, c_void};

    const GDK_GL: &str = "GDK_GL";
    const EGL_VENDORS: &str = "__EGL_VENDOR_LIBRARY_FILENAMES";
    const EGL_EXTENSIONS: c_int = 0x3055;
    extern "C" {
        fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    }
    if std::env::var_os(GDK_GL).is_none() {
        std::env::set_var(GDK_GL, "disable");
    }
    if std::env::var_os(EGL_VENDORS).is_some() {
        return;
    }
    std::env::set_var(EGL_VENDORS, "/nonexistent");
    // RTLD_DEFAULT (null): libEGL came in with WebKit; without it there is nothing to stop.
    // SAFETY: dlsym with a NUL-terminated name; the symbol, when found, is libEGL's
    // `const char *eglQueryString(EGLDisplay, EGLint)`, called with EGL_NO_DISPLAY (null).
    let initialised = unsafe {
        let symbol = dlsym(std::ptr::null_mut(), c"eglQueryString".as_ptr());
        if !symbol.is_null() {
            let query: extern "C" fn(*mut c_void, c_int) -> *const c_char =
                std::mem::transmute(symbol);
            query(std::ptr::null_mut(), EGL_EXTENSIONS);
        }
        !symbol.is_null()
    };
    std::env::remove_var(EGL_VENDORS);
    tracing::info!(
        egl_probe_stopped = initialised,
        "CPU painting: no GL in the window process (GDK_GL=disable)"
    );
}

#[cfg(not(target_os = "linux"))]
fn keep_software_gl_out_of_this_process() {}

/// Logs go to stderr (`RUST_LOG`, default `info`).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(false)
        .with_writer(std::io::stderr)
        .init();
}
