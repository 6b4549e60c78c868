//! The chat lifecycle of DESIGN §2 behind one API, [`Engine`], that both adapters call:
//! plan mode (planner turn, questions, plan card, approval), execution, events.
//!
//! **Invariant:** every user action checks the chat's state before it changes anything, so
//! a refused action changes nothing; each multi-row change is one store step. A planning
//! turn's read-only profile is a parameter of its own tool calls, so it cannot outlive the
//! turn or reach another chat.
//!
//! **Boundary:** no HTTP, no Tauri. Errors are [`ApiError`] (`{code, message}`); events go
//! to per-chat subscribers ([`Engine::subscribe`]).

pub mod attachments;
mod chat_edit;
mod chats;
mod elicitations;
mod error;
mod hub;
mod mcp_settings;
mod messages;
mod notify;
mod plan_actions;
mod plan_changes;
mod plan_files;
mod recovery;
mod runner;
pub mod settings;
mod transitions;
mod view;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{connect_provider, Config, ConfigError, KeyLookup};
use crate::home_lock::{HomeLock, HomeLockError};
use crate::ids::ChatId;
use crate::llm::{LocalModels, Provider, SetupError};
use crate::mcp::{McpError, McpHost, McpOptions, ProfileView};
use crate::store::{Store, StoreError};

pub use chat_edit::ChatPatch;
pub use chats::{ChatHit, NewChat, DEFAULT_TITLE};
pub use elicitations::Elicitation;
pub use error::{ApiError, ErrorCode};
pub use mcp_settings::{
    McpRemote, McpServerSave, McpServerState, McpServerView, McpSettings, McpTool,
};
pub use notify::phase_text;
pub use plan_files::{PlanFolder, TaskPanel};
pub use transitions::MAX_QUESTION_ROUNDS;
pub use view::{ChatView, StateView};
// `SandboxView` is defined below, beside `Engine::sandbox`.

use hub::Hub;
use transitions::{offers_turn_plan, profile_for};

/// The file of the store in the data folder.
pub const DATABASE_FILE: &str = "preflight.db";

/// What the engine needs from its host process.
pub struct EngineOptions {
    /// `$PREFLIGHT_HOME`: config, store, prompts, `mcp.json`.
    pub home: PathBuf,
    /// The MCP host's settings (the filesystem server's path above all).
    pub mcp: McpOptions,
    /// Where API keys are found (the binary passes its environment in).
    pub keys: KeyLookup,
    /// Runs `kind = "embedded"` (the default without `config.toml`) in this process; `None`
    /// makes that kind a clear error. The `preflight` binary passes llama.cpp's.
    pub local_models: Option<Arc<dyn LocalModels>>,
    /// Who this process is, for the data folder's lock ("preflight serve", "the Preflight
    /// window"): a second process on the folder is told who holds it.
    pub program: String,
    /// The data folder's lock when the host holds it already (the window keeps one across
    /// re-opening the engine); `None` makes `open` take it.
    pub home_lock: Option<Arc<HomeLock>>,
}

impl EngineOptions {
    /// Defaults for `home`: the filesystem server at `fs_server`, keys (and remote MCP
    /// servers' tokens) from the system stores and then the process environment.
    pub fn new(home: PathBuf, fs_server: Option<PathBuf>) -> EngineOptions {
        let fs_server =
            fs_server.unwrap_or_else(|| PathBuf::from("server-filesystem-not-installed"));
        let mut mcp = McpOptions::new(home.clone(), fs_server);
        mcp.tokens = Some(crate::mcp::TokenVault::system());
        EngineOptions {
            mcp,
            keys: KeyLookup::system(|name| std::env::var(name).ok()),
            local_models: None,
            program: "preflight".to_owned(),
            home_lock: None,
            home,
        }
    }
}

/// `[sandbox]` over the embedder's sandbox server: off removes it, `network` gives its runs
/// the network, `max_file_mib` caps the files they write.
fn apply_sandbox_settings(mcp: &mut McpOptions, settings: crate::config::SandboxSettings) {
    if !settings.enabled {
        mcp.sandbox = None;
    }
    if let Some(sandbox) = &mut mcp.sandbox {
        sandbox.network = settings.network;
        sandbox.max_file_mib = settings.max_file_mib;
    }
}

/// Why the engine could not start: each names what to fix.
#[derive(Debug, thiserror::Error)]
pub enum EngineError {
    #[error("cannot create the data folder {path}: {source}")]
    Home { path: PathBuf, source: std::io::Error },
    #[error(transparent)]
    Busy(#[from] HomeLockError),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Mcp(#[from] McpError),
    #[error("cannot write the planner prompt: {0}")]
    Prompt(preflight_files::FileError),
}

/// The product without a window. Cheap to clone: clones share one engine.
#[derive(Clone)]
pub struct Engine {
    inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// Serialises the synchronous part of user actions (check state, store, claim the
    /// turn), so that two requests racing on a chat see each other's result. Never held
    /// across an `.await`.
    actions: std::sync::Mutex<()>,
    home: PathBuf,
    store: Arc<Store>,
    hub: Arc<Hub>,
    defaults: crate::config::PlanModeDefaults,
    mcp: McpHost,
    /// Whether `mcp.json` configures Context7 (a fact the planner is told).
    context7_configured: bool,
    /// The executor's model, or why there is none (shown in the chat when a turn needs it).
    executor: Result<Arc<dyn Provider>, SetupError>,
    planner: Result<Arc<dyn Provider>, SetupError>,
    /// `[executor] max_rounds`: tool rounds one executor turn may run.
    executor_max_rounds: u32,
    /// Servers' questions waiting for the user (`elicitations.rs`).
    elicitations: Arc<elicitations::Elicitations>,
    /// Held for the engine's life: no other process runs turns on this data folder.
    _home_lock: Arc<HomeLock>,
}

impl Engine {
    /// Opens the data folder: takes its lock (another process holding it is an error naming
    /// that process, before anything is read), reads `config.toml` (a bad one is an error
    /// naming file, line and key), opens the store, writes `prompts/planner.md` when absent, starts the MCP
    /// host, and settles chats a previous process left mid-turn. Needs a tokio runtime.
    pub async fn open(options: EngineOptions) -> Result<Engine, EngineError> {
        let home = options.home;
        std::fs::create_dir_all(&home)
            .map_err(|source| EngineError::Home { path: home.clone(), source })?;
        let home_lock = match options.home_lock {
            Some(lock) if lock.home() == home => lock,
            _ => Arc::new(HomeLock::acquire(&home, &options.program)?),
        };
        let config = Config::load(&home)?;
        let store = Arc::new(Store::open(home.join(DATABASE_FILE))?);
        crate::paths::ensure_planner_prompt(&home).map_err(EngineError::Prompt)?;
        let mut mcp_config = options.mcp;
        apply_sandbox_settings(&mut mcp_config, config.sandbox);
        let context7_configured = crate::mcp::load_servers(&mcp_config)?
            .iter()
            .any(|server| server.class == crate::mcp::ServerClass::Context7);
        let mcp = McpHost::start(mcp_config)?;
        let local = options.local_models.as_deref();
        let executor = connect_provider(&config.provider, &options.keys, local);
        let planner = connect_provider(&config.planner_settings(), &options.keys, local);
        let hub = Arc::new(Hub::default());
        let inner = Inner {
            actions: std::sync::Mutex::new(()),
            home,
            store,
            hub,
            defaults: config.plan_mode,
            mcp,
            context7_configured,
            executor,
            planner,
            executor_max_rounds: config.executor.max_rounds,
            elicitations: Arc::default(),
            _home_lock: home_lock,
        };
        recovery::settle_interrupted_turns(&inner.store)?;
        Ok(Engine { inner: Arc::new(inner) })
    }

    /// Stops every running turn and every MCP server.
    pub async fn shutdown(&self) {
        for chat in self.inner.store.list_chats().unwrap_or_default() {
            self.inner.hub.stop_turn(&chat.id).await;
        }
        self.inner.mcp.shutdown().await;
    }

    /// The data folder this engine runs on.
    pub fn home(&self) -> &Path {
        &self.inner.home
    }

    /// Held while a user action checks and changes a chat (see `Inner::actions`).
    fn serialize(&self) -> std::sync::MutexGuard<'_, ()> {
        self.inner.actions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `ERR_NOT_FOUND` unless the chat exists.
    pub fn require_chat(&self, chat_id: &ChatId) -> Result<(), ApiError> {
        self.inner.store.get_chat(chat_id).map(drop).map_err(ApiError::from)
    }

    /// The profile of the chat's running turn, or of the one that would run next, with
    /// the tool names its model sees.
    pub async fn profile(&self, chat_id: &ChatId) -> Result<ProfileView, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let profile = profile_for(&self.facts(&chat)?);
        let workspace = chat.workspace.as_deref().map(Path::new);
        let mut view = self
            .inner
            .mcp
            .profile_view(profile, workspace)
            .await
            .map_err(|error| ApiError::internal(error.to_string()))?;
        let list = self.inner.store.task_list(chat_id)?;
        if profile == crate::mcp::Profile::Execution && offers_turn_plan(chat.plan_mode, &list) {
            view.tools.push(crate::tasks::TOOL_NAME.to_owned());
        }
        Ok(view)
    }

    /// The chat's code sandbox as it describes itself (`sandbox_info`, DESIGN §11), started
    /// if it is not running; a chat without one says why, in the same shape.
    pub async fn sandbox(&self, chat_id: &ChatId) -> Result<SandboxView, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let Some(workspace) = chat.workspace.as_deref().map(Path::new) else {
            return Ok(SandboxView::absent(
                "this chat has no workspace, so it has no code sandbox",
            ));
        };
        let cancel = tokio_util::sync::CancellationToken::new();
        Ok(match self.inner.mcp.sandbox_info(workspace, &cancel).await {
            Ok((text, info)) => SandboxView {
                available: true,
                confined: info["confined"].as_bool().unwrap_or(false),
                text,
                info,
            },
            Err(why) => SandboxView::absent(&why.to_string()),
        })
    }
}

/// `GET /v1/chats/{id}/sandbox`: whether the chat has a code sandbox, whether bubblewrap
/// confines it, and its own words (`sandbox_info`) or why there is none.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SandboxView {
    pub available: bool,
    /// Confined by bubblewrap; `false` when commands run unconfined (or there is no sandbox).
    pub confined: bool,
    /// The sandbox's account of itself in plain words, or why the chat has none.
    pub text: String,
    /// `sandbox_info`'s structured facts (`confinement`, `network`, `limits`, `python`,
    /// `venv`, `packages`); `null` without a sandbox.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub info: serde_json::Value,
}

impl SandboxView {
    fn absent(why: &str) -> SandboxView {
        SandboxView {
            available: false,
            confined: false,
            text: why.to_owned(),
            info: serde_json::Value::Null,
        }
    }
}
