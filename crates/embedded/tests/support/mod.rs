//! What the real-model tests share: the installed models (`scripts/setup.sh` fetches the
//! default one; a missing model is a failure that says how to get it, never a skip) and an
//! engine on a fresh data folder whose provider is the embedded default.

#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use preflight_embedded::catalog::{self, CatalogModel};
use preflight_embedded::{EmbeddedModel, LlamaModels};
use preflight_engine::chat::Phase;
use preflight_engine::config::KeyLookup;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{ChatView, Engine, EngineOptions, NewChat};
use preflight_engine::mcp::McpOptions;
use tempfile::TempDir;

/// `$PREFLIGHT_MODELS_DIR` or the cache folder, as the `preflight` binary resolves it.
pub fn models_dir() -> PathBuf {
    catalog::models_dir(|name| std::env::var_os(name)).expect("HOME or PREFLIGHT_MODELS_DIR is set")
}

/// The path of an installed catalog model; panics with the command that installs it.
pub fn installed(id: &str) -> (PathBuf, &'static CatalogModel) {
    let model = catalog::find(id).unwrap();
    let path = models_dir().join(model.file_name);
    assert!(
        path.is_file(),
        "{} is not installed at {}: run `scripts/setup.sh` or `preflight model fetch --model {id}`",
        model.name,
        path.display()
    );
    (path, model)
}

pub fn load(id: &str) -> Arc<EmbeddedModel> {
    let (path, model) = installed(id);
    Arc::new(EmbeddedModel::load(&path, model.name).unwrap())
}

/// An engine on a fresh data folder without `config.toml`: the embedded model plans and
/// executes. No filesystem server: the planner runs without tools.
pub async fn engine(model: &str) -> (Engine, TempDir) {
    installed(if model.is_empty() { catalog::DEFAULT_MODEL } else { model });
    let home = TempDir::new().unwrap();
    if !model.is_empty() {
        let config = format!("[provider]\nkind = \"embedded\"\nmodel = \"{model}\"\n");
        std::fs::write(home.path().join("config.toml"), config).unwrap();
    }
    let options = EngineOptions {
        home: home.path().to_owned(),
        mcp: McpOptions::new(home.path(), home.path().join("no-filesystem-server")),
        keys: KeyLookup::new(Vec::new(), |_| None),
        local_models: Some(Arc::new(LlamaModels::new(models_dir()))),
        program: "preflight test".to_owned(),
        home_lock: None,
    };
    (Engine::open(options).await.unwrap(), home)
}

/// Sends `text` as a new chat's first message and waits for the phase the planner ends in:
/// a card (`questions`, `awaiting_approval`) or the hand-over (`executing`).
pub async fn first_message(engine: &Engine, text: &str) -> (Phase, ChatView) {
    let chat = engine.create_chat(NewChat::default()).unwrap();
    let mut events = engine.subscribe(&chat.id).unwrap();
    engine.send(&chat.id, text, Vec::new()).unwrap();
    let phase = tokio::time::timeout(Duration::from_secs(300), async {
        loop {
            match events.recv().await.expect("the chat's events go on") {
                Event::PlanStatus {
                    phase: phase @ (Phase::Questions | Phase::AwaitingApproval | Phase::Executing),
                    ..
                } => return phase,
                _ => continue,
            }
        }
    })
    .await
    .expect("the planner ends within 5 minutes");
    if phase == Phase::Executing {
        engine.stop(&chat.id).await.unwrap();
    }
    (phase, engine.chat_view(&chat.id).unwrap())
}
