//! The names `mcp.json` and the host agree on: the file, the workspace placeholder, and the
//! entries the host supplies. A leaf: it imports nothing.

/// The file the servers are read from, in the data folder.
pub const MCP_JSON: &str = "mcp.json";
/// Stands for the chat's workspace folder in a server's `args`.
pub const WORKSPACE_VAR: &str = "${workspace}";
/// The name of the filesystem entry the host supplies.
pub const FILESYSTEM: &str = "filesystem";
/// The name of the code-sandbox entry the host supplies (models see `mcp_code-sandbox_…`).
pub const CODE_SANDBOX: &str = "code-sandbox";
