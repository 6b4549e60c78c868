//! `McpOptions`: what the embedder tells the host (paths, limits, the token vault), built
//! explicitly by the embedding code (nothing here reads the environment), and the one read
//! of `mcp.json` from the data folder it names.

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::Duration;

use crate::config::{parse_servers, SandboxDefault, ServerEntry, Supplied, MCP_JSON};
use crate::error::McpError;
use crate::remote::{ClientIdentity, TokenVault};

/// Everything the host needs, passed in explicitly by the embedder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpOptions {
    /// `$PREFLIGHT_HOME`: `mcp.json` is read from here.
    pub data_dir: PathBuf,
    /// `…/@modelcontextprotocol/server-filesystem/dist/index.js`, installed by the set-up;
    /// absolute (a relative path counts as not installed: it would name a workspace file).
    pub filesystem_server: PathBuf,
    /// The Node.js binary that runs it (a bare name is looked up in this process's `PATH`).
    pub node: PathBuf,
    /// Spawn + `initialize` + `tools/list` of one server.
    pub start_timeout: Duration,
    /// One `tools/call`; rmcp has no timeout of its own.
    pub call_timeout: Duration,
    /// The largest JSON-RPC message read from a server; a larger one is refused.
    pub max_message_bytes: usize,
    /// The largest tool result handed to a model.
    pub max_result_bytes: usize,
    /// At shutdown, how long a server may take to exit after SIGTERM before SIGKILL.
    pub shutdown_grace: Duration,
    /// After a failed start, how long uses of that server get the failure without a retry.
    pub retry_after: Duration,
    /// Changes to the environment servers inherit from this process (the allowlist of
    /// [`ALLOWED_ENV`](crate::ALLOWED_ENV)), made before a server's own `env`: a value
    /// sets the variable, `None` removes it. The desktop app takes its private library folder out of
    /// `LD_LIBRARY_PATH` here.
    pub inherited_env: Vec<(String, Option<OsString>)>,
    /// The `code-sandbox` entry supplied when `mcp.json` has none; `None`: no sandbox.
    pub sandbox: Option<SandboxDefault>,
    /// Where remote servers' OAuth tokens are kept; `None`: signing in is not offered.
    pub tokens: Option<TokenVault>,
    /// What Preflight says about itself when it signs in (`remote/auth.rs`).
    pub client_identity: ClientIdentity,
}

impl McpOptions {
    /// Defaults for everything but the two paths.
    pub fn new(data_dir: impl Into<PathBuf>, filesystem_server: impl Into<PathBuf>) -> McpOptions {
        McpOptions {
            data_dir: data_dir.into(),
            filesystem_server: filesystem_server.into(),
            node: PathBuf::from("node"),
            start_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(120),
            max_message_bytes: 8 << 20,
            max_result_bytes: 1 << 20,
            shutdown_grace: Duration::from_secs(2),
            retry_after: Duration::from_secs(30),
            inherited_env: Vec::new(),
            sandbox: None,
            tokens: None,
            client_identity: ClientIdentity::default(),
        }
    }

    pub fn mcp_json(&self) -> PathBuf {
        self.data_dir.join(MCP_JSON)
    }
}

impl<'a> From<&'a McpOptions> for Supplied<'a> {
    fn from(options: &'a McpOptions) -> Supplied<'a> {
        Supplied {
            data_dir: &options.data_dir,
            filesystem_server: &options.filesystem_server,
            node: &options.node,
            sandbox: options.sandbox.as_ref(),
        }
    }
}

/// The servers of `mcp.json` (none when the file does not exist), plus the default
/// filesystem entry when they have none.
pub fn load_servers(options: &McpOptions) -> Result<Vec<ServerEntry>, McpError> {
    let path = options.mcp_json();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}".to_string(),
        Err(e) => return Err(McpError::Config { path, message: format!("cannot be read: {e}") }),
    };
    parse_servers(&path, &text, options)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::default_filesystem;

    #[test]
    fn a_missing_file_means_defaults_and_an_unreadable_one_is_an_error() {
        let home = tempfile::tempdir().unwrap();
        let config = McpOptions::new(home.path(), "/fs.js");
        assert_eq!(load_servers(&config).unwrap(), vec![default_filesystem(&config)]);
        std::fs::create_dir(config.mcp_json()).unwrap();
        let error = load_servers(&config).unwrap_err().to_string();
        assert!(
            error.starts_with(&format!("{}: cannot be read: ", config.mcp_json().display())),
            "{error}"
        );
    }
}
