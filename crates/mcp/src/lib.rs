//! The MCP host (DESIGN §4): the servers of `mcp.json` run through rmcp, and the planning and
//! execution profiles that decide which of their tools a turn sees and may call.
//!
//! Built in floors, each importing only from below: data on the ground floor (`config`:
//! what `mcp.json` says; `key`, `target`, `discovery`, `handshake`, `live`, `status`, `classify`,
//! `schema`, `client`, `error`), the wings beside one another (`local`: child-process
//! servers; `remote`: HTTP, OAuth and sign-in; `turn`: what one turn sees), and on top
//! `connection` (start and call), `connections` (the one task owning every connection),
//! `host` (the cloneable handle, `McpHost`), `prompts` (servers' prompts and resources,
//! DESIGN §17; their data in `catalog`) and `settings` (the settings screen's side of
//! it). `options` is what the embedder passes in; `edit` changes `mcp.json` text.
//!
//! **Invariant:** the read-only guarantee is enforced twice. A planning turn is shown only
//! the allowlisted tools (`turn/profile.rs`), and `McpHost::call` resolves a name through the
//! map of the caller's own profile, so a hidden name is refused before any server sees it.
//!
//! **Invariant:** no tool writes into a `.git` of the workspace (at any depth, in any case),
//! its `.sandbox/` or its `.dwp/` (`turn/guard.rs`, checked at dispatch in every profile; the
//! code sandbox holds `.git` read-only itself).
//!
//! **What it may use:** the protocol crate (tool specs), the providers' crate for keys
//! (`ApiKey`, the OS key store a remote server's tokens live in) and rmcp; never the store,
//! the agent or the engine, which stand above. `confinement.rs` says whether the code
//! sandbox can confine runs on this machine; `venv_adoption.rs` asks it to adopt a workspace's
//! earlier venv at the user's word.

mod catalog;
mod classify;
mod client;
mod config;
pub mod confinement;
mod connection;
mod connections;
mod discovery;
mod edit;
mod error;
mod handshake;
mod host;
mod key;
mod live;
mod local;
mod options;
mod prompts;
mod remote;
mod schema;
mod settings;
mod status;
mod target;
mod turn;
pub mod venv_adoption;

pub use catalog::{
    OfferError, PromptArgument, PromptInfo, PromptList, PromptText, ResourceContent, ResourceData,
    ResourceInfo, ResourceList, ServerFailure,
};
pub use classify::{classify, program_of, ServerClass};
pub use client::{Answer, Asker, Question};
pub use config::{
    default_filesystem, default_sandbox, parse_entry, parse_servers, sandbox_state_dir, EntryError,
    PreRegistered, Remote, RemoteKind, SandboxDefault, ServerEntry, ServerInfo, Supplied,
    CODE_SANDBOX, FILESYSTEM, MCP_JSON, WORKSPACE_VAR,
};
pub use connections::RunningServer;
pub use edit::{edit_servers, ServerChange};
pub use error::McpError;
pub use host::McpHost;
pub use local::{apply_inherited_env, BaseEnvironment, Launch, ALLOWED_ENV};
pub use options::{load_servers, McpOptions};
pub use remote::{ClientIdentity, SignInStarted, TokenVault, Tokens, SIGN_IN_WINDOW};
pub use schema::clean_schema;
pub use status::{ProbedTool, ServerState, ServerStatus, SignInState};
pub use turn::{
    is_valid_name, planning_uses, server_in_profile, server_prefix, to_tool_output,
    tool_in_profile, visible_tools, Profile, ProfileView, SandboxCallError, SandboxRun,
    ServerTools, ToolRef, ToolSet, Unavailable, EVIDENCE_CHARS, PROTECTED, READ_ONLY_ALLOWLIST,
};
