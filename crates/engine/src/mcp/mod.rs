//! The MCP host (DESIGN §4): the servers of `mcp.json` run through rmcp, and the planning and
//! execution profiles that decide which of their tools a turn sees and may call.
//!
//! Pure: `config` parsing, `classify`, `guard` (writes no tool may make), `profile`, `naming`, `schema`, `result`, `sandbox` (a
//! code-sandbox run as the engine reads it), `view` (what one turn sees). I/O: `process` (one server's process group), `transport` (its stdio),
//! `launch` (environment allowlist, program resolution), `remote` (Streamable HTTP),
//! `auth` (signing in, tokens in the key store), `client` (what servers may ask the host),
//! `connection` (start and call), `registry` (the one task owning every connection), `host`
//! (the cloneable handle, `McpHost`).
//!
//! **Invariant:** the read-only guarantee is enforced twice. A planning turn is shown only
//! the allowlisted tools (`profile`), and `McpHost::call` resolves a name through the map of
//! the caller's own profile, so a hidden name is refused before any server sees it.
//!
//! **Invariant:** no tool writes into the workspace's `.git` or `.sandbox/` (`guard`,
//! checked at dispatch in every profile; the code sandbox holds `.git` read-only itself).

pub mod auth;
pub mod classify;
mod client;
pub mod config;
mod connection;
pub mod edit;
mod error;
pub mod guard;
mod host;
pub mod launch;
mod legacy_sse;
pub mod naming;
mod process;
pub mod profile;
mod redirect;
mod registry;
mod remote;
pub mod result;
pub mod sandbox;
pub mod schema;
mod signin;
pub mod status;
mod transport;
mod view;

pub use classify::ServerClass;
pub use client::{Answer, Asker, Question};
pub use config::McpConfig;
pub use error::McpError;
pub use host::McpHost;
pub use profile::Profile;
pub use registry::RunningServer;
pub use sandbox::SandboxRun;
pub use signin::SignInState;
pub use view::{ProfileView, ToolSet, Unavailable};
