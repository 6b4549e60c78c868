//! The errors of the MCP host: what a caller (the chat lifecycle, an adapter) can branch on.
//!
//! Failures of one tool call are not here: they reach the model as an error `ToolOutput`
//! (DESIGN §2), so the agent loop goes on.

use std::path::PathBuf;
use std::time::Duration;

use crate::classify::ServerClass;

/// Cloneable because one failed start answers every caller that was waiting for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum McpError {
    /// `mcp.json` could not be read or is not valid; nothing was changed.
    #[error("{}: {message}", path.display())]
    Config { path: PathBuf, message: String },
    /// The chat's workspace folder cannot be used (it vanished, or is not a folder).
    #[error("workspace {}: {message}", path.display())]
    Workspace { path: PathBuf, message: String },
    /// The server's process could not be spawned at all (missing program, permissions).
    #[error("MCP server `{server}` could not be started: {message}")]
    Spawn { server: String, message: String },
    /// A server the host supplies (the filesystem server, the code sandbox) is not there;
    /// nothing was run in its place.
    /// `class` tells which (the message says how to install it).
    #[error("{}", not_installed(*class, what))]
    NotInstalled { server: String, what: String, class: ServerClass },
    /// Spawn, `initialize` and `tools/list` did not finish within the start timeout.
    #[error("MCP server `{server}` did not finish starting within {} ms", timeout.as_millis())]
    StartTimeout { server: String, timeout: Duration },
    /// A code sandbox started with `--confinement bubblewrap` ended before its handshake:
    /// it refuses to run commands unconfined, as asked, rather than fall back.
    #[error(
        "the code sandbox `{server}` did not start ({message}). Preflight started it requiring \
         bubblewrap's confinement, and it refuses to run commands unconfined rather than fall \
         back without your consent; nothing ran. Make bubblewrap work, or restart Preflight: it checks bubblewrap again, and where bubblewrap \
         still cannot confine runs the plan card asks whether to run them unconfined. \
         `[sandbox] confinement = \"off\"` in config.toml runs them unconfined on purpose"
    )]
    Unconfinable { server: String, message: String },
    /// The server started but the MCP handshake or its tool list failed.
    #[error("MCP server `{server}` failed to initialize: {message}")]
    Initialize { server: String, message: String },
    /// A remote server answered 401/403: the user has to sign in (again, or with more
    /// scopes). `challenge` is its `WWW-Authenticate` header, which the sign-in starts from.
    #[error("MCP server `{server}` needs you to sign in: open Settings → MCP servers and choose Sign in")]
    SignInRequired { server: String, challenge: String },
    /// Signing in to a remote server failed (discovery, registration, the code exchange).
    #[error("signing in to MCP server `{server}` failed: {message}")]
    SignIn { server: String, message: String },
    /// The host was shut down (or its configuration changed) before the request was served.
    #[error("the MCP host has stopped")]
    Stopped,
}

/// What to do about a supplied server that is not installed.
fn not_installed(class: ServerClass, what: &str) -> String {
    if class == ServerClass::CodeSandbox {
        return format!(
            "the code sandbox server is not installed ({what}): build it with `cargo build \
             --workspace` (scripts/setup.sh does), set PREFLIGHT_SANDBOX_SERVER to the absolute \
             path of `preflight-sandbox`, or turn the sandbox off with `[sandbox] enabled = false`"
        );
    }
    format!(
        "the filesystem MCP server is not installed ({what}): run scripts/setup.sh, which installs \
         @modelcontextprotocol/server-filesystem under runtime/node_modules, or set \
         PREFLIGHT_FS_SERVER to the absolute path of its dist/index.js"
    )
}
