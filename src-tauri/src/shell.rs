//! The shell's state: the one engine of this process (re-opened after the settings change,
//! since it reads `config.toml` when it opens), the embedded models it runs `kind =
//! "embedded"` on (one registry for every engine it opens, so the planner and the executor
//! share one copy of a model), the forwarder of the watched chat, and a count of the engines
//! opened (what follows the engine follows the new one).
//!
//! **Invariant:** locks here guard a handle swap only and are never held across `.await`;
//! every command clones the engine handle (cheap: clones share one engine) and calls it.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError, RwLock};
use std::time::Instant;

use preflight_embedded::LlamaModels;
use preflight_engine::home_lock::HomeLock;
use preflight_engine::lifecycle::{ApiError, Engine, EngineOptions};
use tauri::async_runtime::JoinHandle;

use crate::{home, single};

static PROCESS_START: OnceLock<Instant> = OnceLock::new();

/// Called first thing in `main`: the origin of the start-up time the window reports.
pub fn mark_process_start() {
    PROCESS_START.get_or_init(Instant::now);
}

/// Milliseconds since `main` began.
pub fn since_start_ms() -> u64 {
    PROCESS_START.get().map_or(0, |start| start.elapsed().as_millis() as u64)
}

pub struct Shell {
    pub home: PathBuf,
    fs_server: Option<PathBuf>,
    /// The models folder and the embedded models loaded from it.
    pub models: Arc<LlamaModels>,
    /// The engine, or why it could not open (shown on the settings screen).
    engine: RwLock<Result<Engine, String>>,
    /// The task forwarding the watched chat's events to the window.
    watch: Mutex<Option<JoinHandle<()>>>,
    /// Counts the engines opened: who follows the engine (`notice.rs`) follows the new one.
    opened: tokio::sync::watch::Sender<u64>,
    /// The data folder's lock, held for the process's life and lent to every engine it
    /// opens; `None` when another program held the folder at start.
    home_lock: Option<Arc<HomeLock>>,
}

/// Why the window does not open.
pub enum StartError {
    /// A window on this data folder was running and is now in front.
    AlreadyOpen,
    /// The data folder cannot be made.
    Fatal(String),
}

impl Shell {
    /// Resolves the data folder, claims it (a window already running there is brought to
    /// the front instead) and opens the engine. Only a data folder that cannot be made is
    /// fatal; an engine that cannot open, or a folder another program holds, is reported to
    /// the window.
    pub fn start() -> Result<Shell, StartError> {
        let home = home::data_home().map_err(StartError::Fatal)?;
        let (home_lock, engine) = match single::claim(&home) {
            single::Claim::Focused => return Err(StartError::AlreadyOpen),
            single::Claim::First(lock) => (Some(lock), None),
            single::Claim::HeldElsewhere(error) => (None, Some(Err(error.to_string()))),
        };
        let fs_server = preflight_engine::bundled::fs_server_of_this_process();
        let models = Arc::new(LlamaModels::new(home::models_dir().map_err(StartError::Fatal)?));
        let engine = engine.unwrap_or_else(|| {
            tauri::async_runtime::block_on(open(&home, fs_server.clone(), &models, &home_lock))
        });
        if let Err(error) = &engine {
            tracing::error!(%error, "the engine could not start");
        }
        let engine = RwLock::new(engine);
        let opened = tokio::sync::watch::Sender::new(0);
        Ok(Shell { home, fs_server, models, engine, watch: Mutex::new(None), opened, home_lock })
    }

    /// Whether this window holds its data folder (and so answers later starts).
    pub fn holds_home(&self) -> bool {
        self.home_lock.is_some()
    }

    /// The engine, or `ERR_INTERNAL` saying why it is not running.
    pub fn engine(&self) -> Result<Engine, ApiError> {
        match &*self.engine.read().unwrap_or_else(PoisonError::into_inner) {
            Ok(engine) => Ok(engine.clone()),
            Err(error) => Err(ApiError::internal(format!(
                "Preflight could not start: {error}. Fix it in Settings."
            ))),
        }
    }

    pub fn startup_error(&self) -> Option<String> {
        self.engine.read().unwrap_or_else(PoisonError::into_inner).as_ref().err().cloned()
    }

    /// Stops the running engine (its turns and MCP servers) and opens a new one on the same
    /// data folder, so that a changed `config.toml` takes effect.
    pub async fn reopen(&self) -> Result<(), ApiError> {
        self.stop_watching();
        if let Ok(old) = self.engine() {
            old.shutdown().await;
        }
        let engine = open(&self.home, self.fs_server.clone(), &self.models, &self.home_lock).await;
        let result = engine.as_ref().map(drop).map_err(|error| ApiError::internal(error.clone()));
        *self.engine.write().unwrap_or_else(PoisonError::into_inner) = engine;
        self.opened.send_modify(|count| *count += 1);
        result
    }

    /// Changes each time the engine is opened again.
    pub fn opened(&self) -> tokio::sync::watch::Receiver<u64> {
        self.opened.subscribe()
    }

    /// Runs `follow` on the engine open now, for the life of the app: ended and run again on
    /// the next engine when the settings re-open it; waits while none could start. `follow`
    /// ends when its engine's stream does.
    pub async fn each_engine<F, Fut>(&self, mut follow: F)
    where
        F: FnMut(Engine) -> Fut,
        Fut: std::future::Future<Output = ()>,
    {
        let mut opened = self.opened();
        loop {
            opened.borrow_and_update();
            if let Ok(engine) = self.engine() {
                tokio::select! {
                    () = follow(engine) => {}
                    changed = opened.changed() => if changed.is_err() { return },
                }
                // Its stream ended (the engine closed): wait for the next one.
                if !opened.has_changed().unwrap_or(false) && opened.changed().await.is_err() {
                    return;
                }
            } else if opened.changed().await.is_err() {
                return;
            }
        }
    }

    /// Makes `task` the one forwarder, ending the previous one.
    pub fn watch(&self, task: JoinHandle<()>) {
        if let Some(previous) =
            self.watch.lock().unwrap_or_else(PoisonError::into_inner).replace(task)
        {
            previous.abort();
        }
    }

    fn stop_watching(&self) {
        if let Some(previous) = self.watch.lock().unwrap_or_else(PoisonError::into_inner).take() {
            previous.abort();
        }
    }

    pub async fn shutdown(&self) {
        self.stop_watching();
        if let Ok(engine) = self.engine() {
            engine.shutdown().await;
        }
    }
}

async fn open(
    home: &Path,
    fs_server: Option<PathBuf>,
    models: &Arc<LlamaModels>,
    home_lock: &Option<Arc<HomeLock>>,
) -> Result<Engine, String> {
    let mut options = EngineOptions::new(home.to_owned(), fs_server);
    options.local_models = Some(Arc::clone(models) as _);
    options.program = single::PROGRAM.to_owned();
    options.home_lock = home_lock.clone();
    options.mcp.sandbox = Some(preflight_engine::bundled::sandbox_of_this_process());
    // MCP servers are not WebKit's: they get the library path without the speech stand-in.
    #[cfg(target_os = "linux")]
    {
        options.mcp.inherited_env = crate::nospeech::environment_for_other_programs();
    }
    Engine::open(options).await.map_err(|error| error.to_string())
}
