//! `config.toml` in the data folder (DESIGN §10): the provider, an optional separate planner
//! provider, plan-mode defaults and the code sandbox (`[sandbox]`, DESIGN §11). A missing file means the defaults (the embedded model);
//! a bad one is an error naming file, line and key, never a silent default.
//!
//! This module owns the file: `parse.rs` reads it, `write.rs` writes the settings screen's
//! edit of it (checked by the same parser first, replaced atomically with fsync).
//!
//! **Boundary:** paths come in from the caller; nothing here reads the environment.
//! `keys.rs` finds API keys; they are never part of the config.

mod error;
pub mod keys;
mod parse;
mod write;

use std::path::Path;
use std::sync::Arc;

pub use error::ConfigError;
pub use keys::{KernelKeyring, KeyLookup, KeyStore, SecretService};
pub use write::{ConfigEdit, PendingConfig};

use crate::confinement::ConfinementMode;
use crate::llm::{
    build_provider, LocalModels, Provider, ProviderKind, ProviderSettings, SetupError,
};

pub const CONFIG_FILE: &str = "config.toml";

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub provider: ProviderSettings,
    /// `[planner]`: a stronger or cheaper model for planning; none plans with `provider`.
    pub planner: Option<ProviderSettings>,
    pub plan_mode: PlanModeDefaults,
    pub sandbox: SandboxSettings,
    pub executor: ExecutorSettings,
}

/// `[executor]`: how long one executor turn may work. A long run's history is kept within
/// the model's context by compaction (DESIGN §13), so the limit is about cost and runaway
/// loops, not the window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExecutorSettings {
    /// Tool rounds one turn may run before it stops and says so (`ERR_STEP_LIMIT`).
    pub max_rounds: u32,
}

impl Default for ExecutorSettings {
    fn default() -> ExecutorSettings {
        ExecutorSettings { max_rounds: 40 }
    }
}

/// `[sandbox]` (DESIGN §11): whether chats with a workspace get Preflight's code sandbox,
/// and whether commands and Python in it may use the network (off by default: only pip's
/// installs reach it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SandboxSettings {
    pub enabled: bool,
    pub network: bool,
    /// `max_file_mib`: the largest file a run may write; `None` keeps the sandbox's own
    /// default (4096 MiB).
    pub max_file_mib: Option<u32>,
    /// `confinement`: `auto` (bubblewrap where it works, else the user allows unconfined runs
    /// on each plan), `bubblewrap` (or no sandbox), `off` (unconfined on purpose).
    pub confinement: ConfinementMode,
}

impl Default for SandboxSettings {
    fn default() -> SandboxSettings {
        SandboxSettings {
            enabled: true,
            network: false,
            max_file_mib: None,
            confinement: ConfinementMode::Auto,
        }
    }
}

/// What new chats get when their own settings leave plan mode open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanModeDefaults {
    pub enabled: bool,
    pub auto_approve: bool,
}

impl Default for PlanModeDefaults {
    fn default() -> PlanModeDefaults {
        PlanModeDefaults { enabled: true, auto_approve: false }
    }
}

impl Default for Config {
    /// No file: the embedded model, plan mode on.
    fn default() -> Config {
        Config {
            provider: ProviderSettings::embedded(),
            planner: None,
            plan_mode: PlanModeDefaults::default(),
            sandbox: SandboxSettings::default(),
            executor: ExecutorSettings::default(),
        }
    }
}

impl Config {
    /// Reads `{home}/config.toml`; defaults when there is none.
    pub fn load(home: &Path) -> Result<Config, ConfigError> {
        let path = home.join(CONFIG_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => Config::parse(&text, &path),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Config::default()),
            Err(error) => Err(ConfigError::Read { path, source: Arc::new(error) }),
        }
    }

    /// Parses `text`; `path` names the file in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Config, ConfigError> {
        parse::parse(text, path)
    }

    /// The settings planner turns use: `[planner]`, else `[provider]`.
    pub fn planner_settings(&self) -> ProviderSettings {
        match &self.planner {
            Some(planner) => planner.clone(),
            None => ProviderSettings {
                retry: crate::llm::RetryPolicy::planner(),
                ..self.provider.clone()
            },
        }
    }
}

/// The provider `settings` describe, with its key found by `keys`. The embedded kind is
/// opened by `local` (no key is looked for), and refused when there is none. The key lookup
/// may block on D-Bus and loading a local model takes a moment: from async code, call it
/// where blocking is fine (e.g. `spawn_blocking`) or once at start-up.
pub fn connect_provider(
    settings: &ProviderSettings,
    keys: &KeyLookup,
    local: Option<&dyn LocalModels>,
) -> Result<Arc<dyn Provider>, SetupError> {
    if settings.kind == ProviderKind::Embedded {
        return local.map_or(Err(SetupError::EmbeddedNotAvailable), |local| local.open(settings));
    }
    let key = keys.find(settings)?;
    build_provider(settings, key)
}
