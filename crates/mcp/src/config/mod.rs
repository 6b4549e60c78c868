//! What `mcp.json` says: the configured servers as inert data. Nothing here reads a file or
//! the environment, starts a server or imports anything of the host above it; the text and
//! the embedder's paths ([`Supplied`]) are passed in.
//!
//! `mcp.json` has the shape other MCP clients use:
//! `{"mcpServers": {"<name>": {"command": "…", "args": ["…"], "env": {"K": "V"}}}}`.
//! `"type": "stdio"` is accepted (some clients write it), and Preflight's own
//! `"readWhilePlanning": true` lets planning turns see the server's tools annotated
//! `readOnlyHint: true` and not `destructiveHint` (`turn/profile.rs`). A remote server is
//! `{"url": "…", "headers": {…}}` (`config/remote.rs`). Any other key, a duplicate name, an
//! entry with neither or both of `command` and `url` is an error naming the file and the
//! problem, and a file with an error changes nothing. The literal `${workspace}` in `args`
//! becomes the chat's workspace folder; a server using it runs once per workspace (never *in*
//! it: see `local/launch.rs`), and a chat without a workspace does not have it. Without an entry
//! running the filesystem server (or named `filesystem`) the host adds `filesystem`: the
//! pinned npm server run by `node` directly, rooted at `${workspace}`. When that server is
//! not installed (its path is not absolute, or no file is there) the entry stays, and using
//! it is [`McpError::NotInstalled`](crate::McpError::NotInstalled): nothing else is run
//! in its place. Likewise, without an entry named `code-sandbox` or running a code sandbox,
//! the host adds `code-sandbox`: Preflight's own sandbox server (DESIGN §11) for the
//! workspace, unless the embedder turned it off (`[sandbox] enabled = false`).

mod entry;
mod names;
mod parse;
mod remote;
mod supplied;

pub use entry::{ServerEntry, ServerInfo};
pub use names::{CODE_SANDBOX, FILESYSTEM, MCP_JSON, WORKSPACE_VAR};
pub use parse::parse_servers;
pub use parse::{parse_entry, EntryError};
pub use remote::{PreRegistered, Remote, RemoteKind};
pub use supplied::{
    default_filesystem, default_sandbox, sandbox_state_dir, SandboxDefault, Supplied,
};

#[cfg(test)]
mod tests;
