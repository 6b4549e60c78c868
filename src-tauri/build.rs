//! Build script of the desktop shell: generates Tauri's context from the root `tauri.conf.json`.

use std::path::Path;

fn main() {
    // The window serves `ui/dist` (embedded at compile time); rebuild when anything in `ui/` changes.
    println!("cargo:rerun-if-changed=../ui");
    if !Path::new("../ui/dist/index.html").exists() {
        // Otherwise `generate_context!` panics with a less helpful message.
        panic!("ui/dist is not built: run `npm ci && npm run build` in ui/ first");
    }
    tauri_build::try_build(tauri_build::Attributes::new().config_path("../tauri.conf.json"))
        .expect("tauri-build failed (is ../tauri.conf.json valid?)");
}
