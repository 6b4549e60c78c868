//! Build script of the desktop shell: generates Tauri's context from the root
//! `tauri.conf.json`, and an `allow-<command>` permission for each of our commands, listed in
//! `src/commands/names.rs` (the capability in `capabilities/default.json` grants exactly those).

use std::path::Path;

include!("src/commands/names.rs");

fn main() {
    // The window serves `ui/dist` (embedded at compile time); rebuild when it changes.
    println!("cargo:rerun-if-changed=../ui/dist");
    println!("cargo:rerun-if-changed=src/commands/names.rs");
    if !Path::new("../ui/dist/index.html").exists() {
        // Otherwise `generate_context!` panics with a less helpful message.
        panic!("ui/dist is not built: run `npm ci && npm run build` in ui/ first");
    }
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    let attributes = tauri_build::Attributes::new().config_path("../tauri.conf.json").app_manifest(manifest);
    tauri_build::try_build(attributes).expect("tauri-build failed (is ../tauri.conf.json valid?)");
}
