//! `config.toml` in the data folder (DESIGN §10): the provider, an optional separate planner
//! provider, plan-mode defaults and the code sandbox (`[sandbox]`, DESIGN §11). A missing file means the defaults (the embedded model);
//! a bad one is an error naming file, line and key, never a silent default.
//!
//! This module owns the file: `settings.rs` holds what it says, `parse.rs` reads it,
//! `write.rs` writes the settings screen's edit of it (checked by the same parser first,
//! replaced atomically with fsync), and `connect.rs` opens the provider it names.
//!
//! **Boundary:** paths come in from the caller; nothing here reads the environment.
//! API keys are found by the providers' key store (`preflight_llm::KeyLookup`); they are never
//! part of the config.

mod connect;
mod error;
mod parse;
mod settings;
mod write;

pub use connect::connect_provider;
pub use error::ConfigError;
pub(crate) use parse::is_provider_name;
pub use preflight_llm::{KernelKeyring, KeyLookup, KeyStore, Lookup, SecretService};
pub use settings::{
    Config, ExecutorSettings, McpToolSettings, NamedProvider, OnPlannerFailure, PlanModeDefaults,
    ProviderExtras, SandboxSettings, WorkspaceDefaults, CONFIG_FILE, DEFAULT_PROVIDER,
};
pub use write::{ConfigEdit, PendingConfig, ProviderSection, ProviderSectionEdit};
