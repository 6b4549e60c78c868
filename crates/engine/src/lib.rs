//! Preflight's engine: the whole product without a window or a transport.
//!
//! Pure modules (`planner`, `tasks`) do no I/O; `store` owns the SQLite file.
//! Adapters (the Tauri shell, `preflight serve`) call this crate and forward its events.
//! The default feature `host` holds every module that does I/O; without it only the pure
//! modules build (the fuzz targets in `fuzz/` compile just those).

#[cfg(feature = "host")]
pub mod agent;
#[cfg(feature = "host")]
pub mod bundled;
#[cfg(feature = "host")]
pub mod chat;
#[cfg(feature = "host")]
pub mod checkpoints;
#[cfg(feature = "host")]
pub mod config;
#[cfg(feature = "host")]
pub mod confinement;
#[cfg(feature = "host")]
pub mod error_code;
#[cfg(feature = "host")]
pub mod events;
#[cfg(feature = "host")]
pub mod home_lock;
pub mod ids;
pub mod inert;
#[cfg(feature = "host")]
pub mod lifecycle;
#[cfg(feature = "host")]
pub mod llm;
#[cfg(feature = "host")]
pub mod mcp;
#[cfg(feature = "host")]
pub mod paths;
pub mod planner;
#[cfg(feature = "host")]
pub mod store;
pub mod tasks;
#[cfg(feature = "host")]
pub mod tool;

#[cfg(feature = "host")]
mod dwp_input;

pub use ids::{ChangeId, ChatId, MessageId, QuestionId, TaskId};
/// The plan files and the API stamp times alike (RFC 3339, UTC, milliseconds): one clock.
#[cfg(feature = "host")]
pub use preflight_dwp::now_rfc3339;
