//! Preflight's engine: the whole product without a window or a transport, on the top floor
//! of the crates it is built from.
//!
//! The floors, each crate naming only those below it (the compiler holds the ladder):
//! - `preflight-protocol`: ids, error codes, the task list and its rules, the planner's
//!   fences and plan document, chat messages; pure, no I/O.
//! - `preflight-store` (SQLite) and `preflight-llm` (the providers over HTTP, the key store):
//!   side by side, each on the protocol only.
//! - `preflight-mcp`: the MCP host and its profiles, on the providers' keys.
//! - `preflight-agent`: the agent loop, the built-in tools, checkpoints taken, the plan
//!   folder a turn writes, and the events a turn sends.
//! - this crate: the chat lifecycle ([`lifecycle`]: the one API both adapters call,
//!   [`lifecycle::Engine`]), the configuration file ([`config`]), the data folder's paths and
//!   lock, and the programs Preflight runs beside itself ([`bundled`]).
//!
//! Adapters (the desktop shell, `preflight serve`, the terminal front end) call this crate and
//! forward its events. The crates below are re-exported under the module names they had
//! when they were modules of this one, so an adapter needs this crate only.

pub mod bundled;
pub mod config;
pub mod home_lock;
pub mod hooks;
pub mod lifecycle;
pub mod paths;

pub use preflight_agent as agent;
pub use preflight_agent::{checkpoints, events};
pub use preflight_llm as llm;
pub use preflight_mcp as mcp;
pub use preflight_mcp::confinement;
pub use preflight_protocol::{chat, error_code, ids, inert, planner, tasks, tool, usage};
pub use preflight_store as store;

/// The plan files and the API stamp times alike (RFC 3339, UTC, milliseconds): one clock.
pub use preflight_dwp::now_rfc3339;
pub use preflight_protocol::{ChangeId, ChatId, MessageId, QuestionId, TaskId};
