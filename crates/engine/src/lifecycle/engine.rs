//! The engine itself: what it holds ([`Inner`]), what it needs from its host
//! ([`EngineOptions`]), how it opens a data folder and shuts down.
//!
//! **Invariant:** opening settles every chat a previous process left mid-turn before any
//! user action can run; the data folder's lock is held for the engine's whole life.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use preflight_agent::{WorkChange, WorkStream};
use preflight_llm::LocalModels;
use preflight_mcp::{McpError, McpHost, McpOptions};
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::FinalizationNote;
use preflight_store::{Store, StoreError};
use tokio_util::sync::CancellationToken;

use crate::config::{Config, ConfigError, KeyLookup};
use crate::home_lock::{HomeLock, HomeLockError};
use crate::hooks::Hooks;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::gates::Sandboxes;
use crate::lifecycle::hooks_follow::follow_hooks;
use crate::lifecycle::hub::Hub;
use crate::lifecycle::open_questions::Elicitations;
use crate::lifecycle::plan_folders::PlanFolders;
use crate::lifecycle::providers::{Providers, Role};
use crate::lifecycle::recovery::settle_interrupted_turns;
use crate::lifecycle::unconfined::Confinement;

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
        mcp.tokens = Some(preflight_mcp::TokenVault::system());
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
/// the network, `max_file_mib` caps the files they write, `allow_sdists` lets pip build
/// source distributions.
fn apply_sandbox_settings(mcp: &mut McpOptions, settings: crate::config::SandboxSettings) {
    if !settings.enabled {
        mcp.sandbox = None;
    }
    if let Some(sandbox) = &mut mcp.sandbox {
        sandbox.network = settings.network;
        sandbox.max_file_mib = settings.max_file_mib;
        sandbox.confinement = settings.confinement;
        sandbox.allow_sdists = settings.allow_sdists;
    }
}

/// Whether the supplied sandbox confines runs here, asked once now (a fact of the machine),
/// and the mode its server is started with accordingly ([`Confinement::server_mode`]).
async fn settle_confinement(mcp: &mut McpOptions) -> Option<Confinement> {
    let confinement = Confinement::new(mcp.sandbox.as_ref()?, &mcp.data_dir);
    // The probe runs a process and waits for it: not on the runtime's own threads.
    let settled = tokio::task::spawn_blocking(move || {
        let mode = confinement.server_mode();
        (confinement, mode)
    });
    let Ok((confinement, mode)) = settled.await else {
        // The probe panicked: the sandbox keeps its mode, and the calls' check still holds.
        return mcp.sandbox.as_ref().map(|sandbox| Confinement::new(sandbox, &mcp.data_dir));
    };
    if let Some(sandbox) = &mut mcp.sandbox {
        sandbox.confinement = mode;
    }
    Some(confinement)
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
    pub(super) inner: Arc<Inner>,
}

pub(crate) struct Inner {
    /// Serialises the synchronous part of user actions (check state, store, claim the
    /// turn), so that two requests racing on a chat see each other's result. Never held
    /// across an `.await`.
    pub(super) actions: std::sync::Mutex<()>,
    pub(super) home: PathBuf,
    pub(super) store: Arc<Store>,
    pub(super) hub: Arc<Hub>,
    pub(super) defaults: crate::config::PlanModeDefaults,
    /// `[workspace]`: whether a new chat in a git repository gets its own worktree.
    pub(super) workspace_defaults: crate::config::WorkspaceDefaults,
    pub(super) mcp: McpHost,
    /// The providers chats talk to: the configured defaults and each chat's choice.
    pub(super) providers: Providers,
    /// `[executor]`: when an executor turn ends, and how often it continues by itself.
    pub(super) executor_settings: crate::config::ExecutorSettings,
    /// `[mcp]`: when tool search defers the MCP tools.
    pub(super) tool_settings: crate::config::McpToolSettings,
    /// Every task that works on a chat after the call that started it returned (turns, a
    /// verdict's checks): `shutdown` waits for them, so no task outlives the engine's handle
    /// on the data folder.
    pub(super) tasks: tokio_util::task::TaskTracker,
    /// Servers' questions waiting for the user (`elicitations.rs`).
    pub(super) elicitations: Arc<Elicitations>,
    /// Whether the supplied code sandbox confines runs here (`None`: no supplied sandbox).
    pub(super) confinement: Option<Arc<Confinement>>,
    /// The chats' code as their sandboxes meet it (the turn's tools, the finaliser).
    pub(super) sandboxes: Sandboxes,
    /// Where every change of a chat's work is said; the plan folders listen.
    pub(super) work: WorkStream,
    /// The user's hooks (DESIGN §17).
    pub(super) hooks: Arc<Hooks>,
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
        let hooks = Arc::new(Hooks::for_config(&home, &config));
        let store = Arc::new(Store::open(home.join(DATABASE_FILE))?);
        crate::paths::ensure_planner_prompt(&home).map_err(EngineError::Prompt)?;
        let mut mcp_config = options.mcp;
        apply_sandbox_settings(&mut mcp_config, config.sandbox);
        let confinement = settle_confinement(&mut mcp_config).await;
        let mcp = McpHost::start(mcp_config)?;
        let providers = Providers::new(&config, options.keys, options.local_models);
        let hub = Arc::new(Hub::default());
        let confinement = confinement.map(Arc::new);
        let sandboxes = Sandboxes {
            store: Arc::clone(&store),
            mcp: mcp.clone(),
            confinement: confinement.clone(),
        };
        let work = WorkStream::default();
        let default = providers.default_provider(Role::Executor);
        let model = default.as_ref().map(|provider| provider.model());
        let folders = PlanFolders::new(Arc::clone(&store), model, sandboxes.clone());
        work.subscribe(Arc::new(folders));
        let inner = Inner {
            actions: std::sync::Mutex::new(()),
            home,
            store,
            hub,
            defaults: config.plan_mode,
            workspace_defaults: config.workspace,
            mcp,
            providers,
            executor_settings: config.executor,
            tool_settings: config.mcp,
            tasks: tokio_util::task::TaskTracker::new(),
            elicitations: Arc::default(),
            confinement,
            sandboxes,
            work,
            hooks,
            _home_lock: home_lock,
        };
        settle_interrupted_turns(&inner.store)?;
        follow_hooks(&inner.hub, &inner.store, &inner.hooks, &inner.work);
        Ok(Engine { inner: Arc::new(inner) })
    }

    /// Stops every running turn and every MCP server.
    pub async fn shutdown(&self) {
        for chat in self.inner.store.list_chats().unwrap_or_default() {
            self.inner.hub.stop_turn(&chat.id).await;
        }
        // A stopped turn's task still says its closing events after it settled.
        self.inner.tasks.close();
        self.inner.tasks.wait().await;
        self.inner.mcp.shutdown().await;
    }

    /// The data folder this engine runs on.
    pub fn home(&self) -> &Path {
        &self.inner.home
    }

    /// Held while a user action checks and changes a chat (see `Inner::actions`).
    pub(super) fn serialize(&self) -> std::sync::MutexGuard<'_, ()> {
        self.inner.actions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// `ERR_NOT_FOUND` unless the chat exists.
    pub fn require_chat(&self, chat_id: &ChatId) -> Result<(), ApiError> {
        self.inner.store.get_chat(chat_id).map(drop).map_err(ApiError::from)
    }
}

impl Inner {
    /// Says `change` of the chat's work on the work stream and sends the chat what its
    /// listeners said; the plan folder's finalisation verdict, for a completion.
    pub(super) async fn tell_work(
        &self,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        cancel: &CancellationToken,
    ) -> Option<FinalizationNote> {
        let heard = self.work.emit(chat_id, change, cancel).await;
        for event in heard.events {
            self.hub.emit(chat_id, event);
        }
        heard.finalization
    }
}
