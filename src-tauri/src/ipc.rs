//! The shell's own IPC shapes (the engine's types cross as they are). Generated into
//! `ui/src/generated/desktop/` by this file's test, like the engine's types.

use preflight_engine::events::Event;
use preflight_engine::ChatId;
use serde::{Deserialize, Serialize};

/// The Tauri event carrying a chat's events other than `delta` (DESIGN §7).
pub const CHAT_EVENT: &str = "chat-event";
/// Sent when the window fell behind a chat's events: it reloads the chat.
pub const CHAT_RESYNC: &str = "chat-resync";
/// Sent when the user clicked a desktop notification: the window opens that chat.
pub const OPEN_CHAT: &str = "open-chat";

/// A chat event addressed to its chat.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChatEvent {
    pub chat_id: ChatId,
    pub event: Event,
}

/// Names a chat (the `chat-resync` payload).
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ChatRef {
    pub chat_id: ChatId,
}

/// Settings → Notifications, and the words of the notifications in the window's language:
/// the window sends them at start and whenever they or the language change. Until it does,
/// no notification is raised.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NoticeSettings {
    /// Raise a notification when a card waits or a run ends while the window is not in front.
    pub enabled: bool,
    /// Ask the notification server for its message sound.
    pub sound: bool,
    pub words: NoticeWords,
}

/// A notification's body for each thing that waits (`Waiting`), and its click's name.
#[derive(Debug, Clone, Default, Deserialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct NoticeWords {
    pub questions: String,
    pub plan: String,
    pub unconfined: String,
    pub plan_change: String,
    pub elicitation: String,
    pub stopped: String,
    pub done: String,
    pub unverified: String,
    pub failed: String,
    /// The default action, "Open the chat" (some servers show it as a button).
    pub open: String,
}

/// What the window asks first: the version, the data folder, why the engine could not
/// start, if it could not (a bad `config.toml`, fixed on the settings screen), and the
/// embedded models the settings screen offers.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct AppInfo {
    pub version: String,
    pub home: String,
    pub startup_error: Option<String>,
    pub models_dir: String,
    pub models: Vec<EmbeddedModel>,
}

/// A model of the embedded catalog, and whether its file is in the models folder.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct EmbeddedModel {
    /// What `config.toml`'s `model` calls it (`smollm2`, `gemma3`).
    pub id: String,
    pub name: String,
    pub default: bool,
    /// The whole file is there (by size; the engine checks it loads, an install checks its
    /// SHA-256).
    pub installed: bool,
    /// The file's size in bytes.
    pub size: u64,
    /// The SHA-256 the catalog pins for the file (lowercase hex): an install is refused
    /// unless the file has it.
    pub sha256: String,
}

/// Where an install is, sent over the `Channel` the window passes to `install_model`: at
/// most every 100 ms while bytes arrive, and at each change of phase.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
pub struct ModelProgress {
    pub model_id: String,
    pub phase: InstallPhase,
    /// Bytes downloaded, of `total`.
    pub done: u64,
    pub total: u64,
    /// The average download rate so far.
    pub bytes_per_second: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(test, derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum InstallPhase {
    Downloading,
    /// Every byte is in; the file is being unpacked and its SHA-256 checked.
    Verifying,
    /// Installed and verified.
    Done,
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use ts_rs::{Config, TS};

    use super::*;

    /// Fails when `ui/src/generated/desktop/` differs from these types;
    /// `UPDATE_BINDINGS=1 cargo test -p preflight-desktop` rewrites it.
    #[test]
    fn the_shell_types_are_generated_for_the_ui() {
        let fresh = tempfile::tempdir().unwrap();
        let config = Config::new().with_out_dir(fresh.path()).with_large_int("number");
        ChatEvent::export(&config).unwrap();
        ChatRef::export(&config).unwrap();
        AppInfo::export(&config).unwrap();
        EmbeddedModel::export(&config).unwrap();
        ModelProgress::export(&config).unwrap();
        InstallPhase::export(&config).unwrap();
        NoticeSettings::export(&config).unwrap();
        NoticeWords::export(&config).unwrap();
        let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src/generated/desktop");
        let own = [
            "ChatEvent",
            "ChatRef",
            "AppInfo",
            "EmbeddedModel",
            "ModelProgress",
            "InstallPhase",
            "NoticeSettings",
            "NoticeWords",
        ];
        for name in own.map(|name| format!("{name}.ts")) {
            // The engine's types live one folder up, with the engine's own check.
            let mut text = std::fs::read_to_string(fresh.path().join(&name))
                .unwrap()
                .replace("from \"./", "from \"../");
            for sibling in own {
                text = text
                    .replace(&format!("from \"../{sibling}\""), &format!("from \"./{sibling}\""));
            }
            if std::env::var_os("UPDATE_BINDINGS").is_some() {
                std::fs::create_dir_all(&target).unwrap();
                std::fs::write(target.join(&name), &text).unwrap();
            }
            let committed = std::fs::read_to_string(target.join(&name)).unwrap_or_default();
            assert_eq!(committed, text, "ui/src/generated/desktop/{name} is out of date: run UPDATE_BINDINGS=1 cargo test -p preflight-desktop");
        }
    }
}
