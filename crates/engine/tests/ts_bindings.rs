//! The TypeScript types the desktop UI shares with the engine are generated from the Rust
//! types (ts-rs, feature `ts`), never written by hand. This test generates them afresh and
//! fails when `ui/src/generated/` differs; `UPDATE_BINDINGS=1` rewrites that folder.
//!
//! Run: `cargo test -p preflight-engine --features ts --test ts_bindings`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use preflight_engine::chat::Chat;
use preflight_engine::error_code::ErrorCode;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{ApiError, ChatPatch, ChatView, NewChat, SandboxView, TaskPanel};
use preflight_engine::lifecycle::{AppSettings, SettingsUpdate};
use preflight_engine::planner::{CommentDraft, PlanEdit};
use ts_rs::{Config, TS};

fn generated_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../ui/src/generated")
}

/// Every `.ts` file below `dir` by its name, with its text.
fn read_tree(dir: &Path) -> BTreeMap<String, String> {
    let Ok(entries) = std::fs::read_dir(dir) else { return BTreeMap::new() };
    entries
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "ts"))
        .map(|path| {
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read_to_string(&path).unwrap(),
            )
        })
        .collect()
}

/// The roots the UI uses; ts-rs exports every type they mention as well.
fn export_all(dir: &Path) {
    // JavaScript numbers hold every id and count the API sends.
    let config = Config::new().with_out_dir(dir).with_large_int("number");
    ChatView::export_all(&config).unwrap();
    Event::export_all(&config).unwrap();
    Chat::export_all(&config).unwrap();
    preflight_engine::lifecycle::ChatPage::export_all(&config).unwrap();
    preflight_engine::lifecycle::MessagePage::export_all(&config).unwrap();
    preflight_engine::lifecycle::SearchPage::export_all(&config).unwrap();
    ApiError::export_all(&config).unwrap();
    preflight_engine::lifecycle::PickedFile::export_all(&config).unwrap();
    // What the window's paste and drop send with a message (DESIGN §15).
    preflight_engine::chat::PastedImage::export_all(&config).unwrap();
    preflight_engine::lifecycle::McpSettings::export_all(&config).unwrap();
    preflight_engine::hooks::HooksView::export_all(&config).unwrap();
    preflight_engine::lifecycle::McpServerSave::export_all(&config).unwrap();
    preflight_engine::mcp::Answer::export_all(&config).unwrap();
    preflight_engine::mcp::SignInState::export_all(&config).unwrap();
    // The message box's slash and @ menus (DESIGN §17).
    preflight_engine::mcp::PromptList::export_all(&config).unwrap();
    preflight_engine::mcp::ResourceList::export_all(&config).unwrap();
    NewChat::export_all(&config).unwrap();
    ChatPatch::export_all(&config).unwrap();
    TaskPanel::export_all(&config).unwrap();
    SandboxView::export_all(&config).unwrap();
    PlanEdit::export_all(&config).unwrap();
    CommentDraft::export_all(&config).unwrap();
    AppSettings::export_all(&config).unwrap();
    preflight_engine::lifecycle::ProviderCheck::export_all(&config).unwrap();
    SettingsUpdate::export_all(&config).unwrap();
    preflight_engine::lifecycle::CheckpointList::export_all(&config).unwrap();
    preflight_engine::lifecycle::CheckpointDiff::export_all(&config).unwrap();
    preflight_engine::lifecycle::RestorePreview::export_all(&config).unwrap();
    // A chat's own worktree: its diff, Merge and its preview (DESIGN §18).
    preflight_engine::lifecycle::WorktreeView::export_all(&config).unwrap();
    preflight_engine::lifecycle::MergeRequest::export_all(&config).unwrap();
    preflight_engine::lifecycle::MergeOutcome::export_all(&config).unwrap();
    // The chat list's running chats (several at once).
    preflight_engine::lifecycle::ChatPhase::export_all(&config).unwrap();
    preflight_engine::lifecycle::ModelList::export_all(&config).unwrap();
    preflight_engine::lifecycle::NamedProviderView::export_all(&config).unwrap();
    preflight_engine::lifecycle::NamedProviderSave::export_all(&config).unwrap();
    preflight_engine::lifecycle::ExportFormat::export_all(&config).unwrap();
    preflight_engine::lifecycle::ForkRequest::export_all(&config).unwrap();
    // The skills Settings lists (DESIGN §17).
    preflight_engine::agent::skills::SkillSet::export_all(&config).unwrap();
    export_error_codes(dir);
}

/// `ErrorCode` as a value too, for the UI to tell an engine's code from any other string
/// without a cast: a list typed by the generated `ErrorCode`, so each entry is checked.
fn export_error_codes(dir: &Path) {
    let codes: Vec<String> =
        ErrorCode::ALL.iter().map(|code| format!("  \"{}\",\n", code.as_str())).collect();
    let text = format!(
        "// Generated from `ErrorCode::ALL` by crates/engine/tests/ts_bindings.rs. Do not edit \
         this file manually.\nimport type {{ ErrorCode }} from \"./ErrorCode\";\n\n\
         /** Every code the engine sends, in declaration order. */\n\
         export const ERROR_CODES: readonly ErrorCode[] = [\n{}];\n",
        codes.concat()
    );
    std::fs::write(dir.join("errorCodes.ts"), text).unwrap();
}

#[test]
fn the_ui_types_are_generated_from_the_rust_types() {
    let fresh_dir = tempfile::tempdir().unwrap();
    export_all(fresh_dir.path());
    let fresh = read_tree(fresh_dir.path());
    assert!(
        fresh.contains_key("ChatView.ts") && fresh.contains_key("Event.ts"),
        "{:?}",
        fresh.keys()
    );
    let target = generated_dir();
    if std::env::var_os("UPDATE_BINDINGS").is_some() {
        // Only this folder's own files: `desktop/` holds the shell's, checked by its crate.
        for name in read_tree(&target).keys() {
            std::fs::remove_file(target.join(name)).unwrap();
        }
        std::fs::create_dir_all(&target).unwrap();
        for (name, text) in &fresh {
            std::fs::write(target.join(name), text).unwrap();
        }
        return;
    }
    let committed = read_tree(&target);
    let stale: Vec<&String> = fresh
        .keys()
        .chain(committed.keys())
        .filter(|name| fresh.get(*name) != committed.get(*name))
        .collect();
    assert!(
        stale.is_empty(),
        "ui/src/generated/ is out of date ({stale:?}): run \
         `UPDATE_BINDINGS=1 cargo test -p preflight-engine --features ts --test ts_bindings`"
    );
}
