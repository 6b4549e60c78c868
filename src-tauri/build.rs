//! Build script of the desktop shell: generates Tauri's context from the root
//! `tauri.conf.json`, and an `allow-<command>` permission for each of our commands, listed in
//! `src/commands/names.rs` (the capability in `capabilities/default.json` grants exactly those);
//! on Linux, the silent flite stand-in `nospeech/nospeech.c` as a shared library in `OUT_DIR`.

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
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        build_silent_speech();
    }
    let manifest = tauri_build::AppManifest::new().commands(COMMANDS);
    let attributes =
        tauri_build::Attributes::new().config_path("../tauri.conf.json").app_manifest(manifest);
    tauri_build::try_build(attributes).expect("tauri-build failed (is ../tauri.conf.json valid?)");
}

/// `libpreflight-nospeech.so`, which `src/nospeech.rs` embeds.
fn build_silent_speech() {
    println!("cargo:rerun-if-changed=nospeech/nospeech.c");
    println!("cargo:rerun-if-env-changed=CC");
    println!("cargo:rerun-if-env-changed=CFLAGS");
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"))
        .join("libpreflight-nospeech.so");
    let compiler = cc::Build::new().cargo_metadata(false).get_compiler();
    let status = compiler
        .to_command()
        .args([
            "-shared",
            "-fPIC",
            "-O2",
            "-s",
            "-Wl,-soname,libpreflight-nospeech.so",
            "-Wl,-z,now",
            "-Wl,-z,relro",
            "-o",
        ])
        .arg(&out)
        .arg("nospeech/nospeech.c")
        .status()
        .expect("the C compiler could not be started for nospeech/nospeech.c");
    assert!(status.success(), "compiling nospeech/nospeech.c failed");
}
