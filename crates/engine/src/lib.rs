//! Preflight's engine: the whole product without a window or a transport.
//!
//! Pure modules (`planner`, `tasks`) do no I/O; `store` owns the SQLite file.
//! Adapters (the Tauri shell, `preflight serve`) call this crate and forward its events.

pub mod agent;
pub mod chat;
pub mod config;
pub mod dwp;
pub mod error_code;
pub mod events;
pub mod lifecycle;
pub mod llm;
pub mod mcp;
pub mod paths;
pub mod planner;
pub mod store;
pub mod tasks;
pub mod tool;

mod clock;

pub use clock::now_rfc3339;
