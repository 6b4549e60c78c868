//! The host's configuration: `McpConfig`, built explicitly by the embedding code (nothing
//! here reads the environment), and the servers of `$PREFLIGHT_HOME/mcp.json`.
//!
//! `mcp.json` has the shape other MCP clients use:
//! `{"mcpServers": {"<name>": {"command": "…", "args": ["…"], "env": {"K": "V"}}}}`.
//! `"type": "stdio"` is accepted (some clients write it), and Preflight's own
//! `"readWhilePlanning": true` lets planning turns see the server's tools annotated
//! `readOnlyHint: true` and not `destructiveHint` (`profile.rs`). A remote server is
//! `{"url": "…", "headers": {…}}` (`remote.rs`). Any other key, a duplicate name, an entry
//! with neither or both of `command` and `url` is an error naming the file and the
//! problem, and a file with an error changes nothing. The literal `${workspace}` in `args`
//! becomes the chat's workspace folder; a server using it runs once per workspace (never *in*
//! it: see `launch`), and a chat without a workspace does not have it. Without an entry
//! running the filesystem server (or named `filesystem`) the host adds `filesystem`: the
//! pinned npm server run by `node` directly, rooted at `${workspace}`. When that server is
//! not installed (its path is not absolute, or no file is there) the entry stays, and using
//! it is [`McpError::NotInstalled`]: nothing else is run in its place. Likewise, without an
//! entry named `code-sandbox` or running a code sandbox, the host adds `code-sandbox`:
//! Preflight's own sandbox server (DESIGN §11) for the workspace, unless the embedder turned
//! it off (`[sandbox] enabled = false`).

use std::ffi::OsString;
use std::fmt;
use std::marker::PhantomData;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::classify::{classify, program_of, ServerClass};
use super::error::McpError;
use super::launch::BaseEnvironment;

mod remote;
pub use remote::{PreRegistered, Remote, RemoteKind};

/// The file the servers are read from, in the data folder.
pub const MCP_JSON: &str = "mcp.json";
/// Stands for the chat's workspace folder in a server's `args`.
pub const WORKSPACE_VAR: &str = "${workspace}";
/// The name of the filesystem entry the host supplies.
pub const FILESYSTEM: &str = "filesystem";
/// The name of the code-sandbox entry the host supplies (models see `mcp_code-sandbox_…`).
pub const CODE_SANDBOX: &str = "code-sandbox";

/// Preflight's own sandbox server, supplied as the `code-sandbox` entry (DESIGN §11).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxDefault {
    /// The `preflight-sandbox` binary; absolute (anything else counts as not installed).
    pub program: PathBuf,
    /// `[sandbox] network`: `true` runs the server with `--network` (commands and Python get
    /// the host's network; pip's installs always have it).
    pub network: bool,
    /// `[sandbox] max_file_mib`: passed as `--max-file-mib` (the largest file a run may
    /// write); `None` leaves the sandbox's default.
    pub max_file_mib: Option<u32>,
    /// Variables the server gets besides the inherited allowlist: the embedder passes its
    /// `PIP_*` settings (index, find-links, proxies), which DESIGN §11 lets into runs.
    pub env: Vec<(String, String)>,
}

/// Everything the host needs, passed in explicitly.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpConfig {
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
    /// `launch::ALLOWED_ENV`), made before a server's own `env`: a value sets the variable,
    /// `None` removes it. The desktop app takes its private library folder out of
    /// `LD_LIBRARY_PATH` here.
    pub inherited_env: Vec<(String, Option<OsString>)>,
    /// The `code-sandbox` entry supplied when `mcp.json` has none; `None`: no sandbox.
    pub sandbox: Option<SandboxDefault>,
    /// Where remote servers' OAuth tokens are kept; `None`: signing in is not offered.
    pub tokens: Option<super::auth::TokenVault>,
    /// What Preflight says about itself when it signs in (`auth.rs`).
    pub client_identity: super::auth::ClientIdentity,
}

impl McpConfig {
    /// Defaults for everything but the two paths.
    pub fn new(data_dir: impl Into<PathBuf>, filesystem_server: impl Into<PathBuf>) -> McpConfig {
        McpConfig {
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
            client_identity: super::auth::ClientIdentity::default(),
        }
    }

    pub fn mcp_json(&self) -> PathBuf {
        self.data_dir.join(MCP_JSON)
    }
}

/// One configured server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerEntry {
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    pub class: ServerClass,
    /// Why the entry cannot run: what is missing (the default filesystem server when the
    /// set-up did not install it).
    pub missing: Option<String>,
    /// `"readWhilePlanning": true`: planning turns see its read-only tools (DESIGN §4).
    pub read_while_planning: bool,
    /// A remote server (`url`): `command`, `args` and `env` are then empty.
    pub remote: Option<Remote>,
}

/// Makes the `changes` of [`McpConfig::inherited_env`] to what `command` inherits: a value
/// sets a variable, `None` removes it.
pub fn apply_inherited_env(
    command: &mut std::process::Command,
    changes: &[(String, Option<OsString>)],
) {
    for (name, value) in changes {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
}

/// What the adapters may show of a configured server (and what the host logs at start).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ServerInfo {
    pub name: String,
    pub class: ServerClass,
    /// The program or package that runs, which decided the class ([`program_of`]).
    pub program: String,
}

impl From<&ServerEntry> for ServerInfo {
    fn from(entry: &ServerEntry) -> ServerInfo {
        let program = match &entry.remote {
            Some(remote) => remote.url.clone(),
            None => program_of(&entry.command, &entry.args).to_owned(),
        };
        ServerInfo { name: entry.name.clone(), class: entry.class, program }
    }
}

/// A server's command line with `${workspace}` filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// As configured: resolved to an absolute path only when spawned.
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The workspace, for servers that use it (its folders are never searched for programs).
    pub workspace: Option<PathBuf>,
    /// The environment and working folder every server starts from; `env` comes after it.
    pub base: Arc<BaseEnvironment>,
}

impl ServerEntry {
    /// Whether the server runs once per workspace (its `args` name `${workspace}`).
    pub fn uses_workspace(&self) -> bool {
        self.args.iter().any(|arg| arg.contains(WORKSPACE_VAR))
    }

    /// The command line for a chat in `workspace`; `None` when the server needs a workspace
    /// and the chat has none.
    pub fn launch(&self, workspace: Option<&Path>) -> Option<Launch> {
        let workspace = match (self.uses_workspace(), workspace) {
            (false, _) => None,
            (true, None) => return None,
            (true, Some(folder)) => Some(folder.to_path_buf()),
        };
        let folder =
            workspace.as_deref().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        Some(Launch {
            program: self.command.clone(),
            args: self.args.iter().map(|arg| arg.replace(WORKSPACE_VAR, &folder)).collect(),
            env: self.env.clone(),
            workspace,
            base: Arc::default(),
        })
    }

    /// What to start for a chat in `workspace`: the process ([`ServerEntry::launch`]), or the
    /// remote server.
    pub(crate) fn target(
        &self,
        workspace: Option<&Path>,
        base: &Arc<BaseEnvironment>,
    ) -> Option<super::connection::Target> {
        if let Some(remote) = &self.remote {
            return Some(super::connection::Target::Remote(remote.clone()));
        }
        let mut launch = self.launch(workspace)?;
        launch.base = Arc::clone(base);
        Some(super::connection::Target::Process(launch))
    }

    /// The error of using an entry that cannot run ([`ServerEntry::missing`]).
    pub fn unusable(&self) -> Option<McpError> {
        let what = self.missing.clone()?;
        Some(McpError::NotInstalled { server: self.name.clone(), what })
    }
}

/// The servers of `mcp.json` (none when the file does not exist), plus the default
/// filesystem entry when they have none.
pub fn load_servers(config: &McpConfig) -> Result<Vec<ServerEntry>, McpError> {
    let path = config.mcp_json();
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => "{}".to_string(),
        Err(e) => return Err(McpError::Config { path, message: format!("cannot be read: {e}") }),
    };
    parse_servers(&path, &text, config)
}

/// `load_servers` on text already read from `path` (used in error messages only).
pub fn parse_servers(
    path: &Path,
    text: &str,
    config: &McpConfig,
) -> Result<Vec<ServerEntry>, McpError> {
    let error = |message: String| McpError::Config { path: path.to_path_buf(), message };
    if text.trim().is_empty() {
        return Err(error("is empty; write {\"mcpServers\": {}} or remove the file".into()));
    }
    let file: FileShape = serde_json::from_str(text).map_err(|e| error(e.to_string()))?;
    let mut servers = Vec::new();
    for (name, raw) in file.servers.0 {
        servers.push(raw.into_entry(name).map_err(error)?);
    }
    let has_filesystem =
        servers.iter().any(|s| s.name == FILESYSTEM || s.class == ServerClass::Filesystem);
    if !has_filesystem {
        servers.push(default_filesystem(config));
    }
    let has_sandbox =
        servers.iter().any(|s| s.name == CODE_SANDBOX || s.class == ServerClass::CodeSandbox);
    if let (false, Some(sandbox)) = (has_sandbox, &config.sandbox) {
        servers.push(default_sandbox(sandbox, &config.data_dir));
    }
    Ok(servers)
}

/// Preflight's sandbox server for `${workspace}`, recording the venvs it makes in the data
/// folder's `sandbox/` (outside every workspace); `missing` says why it cannot run when the
/// binary is not there.
pub fn default_sandbox(sandbox: &SandboxDefault, data_dir: &Path) -> ServerEntry {
    let program = &sandbox.program;
    let mut args = vec!["--workspace".to_owned(), WORKSPACE_VAR.to_owned()];
    args.push("--state-dir".to_owned());
    args.push(data_dir.join("sandbox").to_string_lossy().into_owned());
    if sandbox.network {
        args.push("--network".to_owned());
    }
    if let Some(mib) = sandbox.max_file_mib {
        args.extend(["--max-file-mib".to_owned(), mib.to_string()]);
    }
    let missing = if !program.is_absolute() {
        Some(format!("the sandbox server `{}` is not an absolute path", program.display()))
    } else if !program.is_file() {
        Some(format!("there is no sandbox server at {}", program.display()))
    } else {
        None
    };
    ServerEntry {
        name: CODE_SANDBOX.to_owned(),
        command: program.to_string_lossy().into_owned(),
        args,
        env: sandbox.env.clone(),
        class: ServerClass::CodeSandbox,
        missing,
        read_while_planning: false,
        remote: None,
    }
}

/// The pinned npm server, run by `node` directly: half npx's start time, and the pid we
/// hold is the server's own. `missing` says why it cannot run when it is not installed.
pub fn default_filesystem(config: &McpConfig) -> ServerEntry {
    let script = &config.filesystem_server;
    let args = vec![script.to_string_lossy().into_owned(), WORKSPACE_VAR.to_string()];
    let missing = if !script.is_absolute() {
        Some(format!("it was not found; `{}` is not an absolute path", script.display()))
    } else if !script.is_file() {
        Some(format!("there is no file at {}", script.display()))
    } else {
        None
    };
    ServerEntry {
        name: FILESYSTEM.to_string(),
        command: config.node.to_string_lossy().into_owned(),
        class: ServerClass::Filesystem,
        args,
        env: Vec::new(),
        missing,
        read_while_planning: false,
        remote: None,
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(rename = "mcpServers", default)]
    servers: Ordered<RawEntry>,
}

/// One entry of `mcp.json` read on its own, by the rules of [`parse_servers`]: the settings
/// screen shows each entry's own error.
pub(crate) fn parse_entry(name: &str, entry: &serde_json::Value) -> Result<ServerEntry, String> {
    let raw: RawEntry = serde_json::from_value(entry.clone())
        .map_err(|error| format!("server `{name}`: {error}"))?;
    raw.into_entry(name.to_owned())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: Ordered<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "readWhilePlanning", default)]
    read_while_planning: bool,
    url: Option<String>,
    #[serde(default)]
    headers: Ordered<String>,
    oauth: Option<RawOAuth>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    #[serde(rename = "clientId")]
    client_id: Option<String>,
    #[serde(rename = "clientSecret")]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

impl RawEntry {
    fn into_entry(self, name: String) -> Result<ServerEntry, String> {
        if name.trim().is_empty() {
            return Err("a server has an empty name".into());
        }
        let kind = remote::remote_kind(self.kind.as_deref())
            .map_err(|error| format!("server `{name}`: {error}"))?;
        if self.url.is_some() || kind.is_some() {
            return self.into_remote(name, kind.unwrap_or(RemoteKind::StreamableHttp));
        }
        if !self.headers.0.is_empty() || self.oauth.is_some() {
            return Err(format!("server `{name}`: `headers` and `oauth` are for `url` servers"));
        }
        let command = match self.command {
            Some(command) if !command.trim().is_empty() => command,
            _ => return Err(format!("server `{name}`: `command` (or `url`) is missing or empty")),
        };
        let class = classify(&name, &command, &self.args);
        let read_while_planning = self.read_while_planning;
        let (args, env) = (self.args, self.env.0);
        Ok(ServerEntry {
            name,
            command,
            args,
            env,
            class,
            missing: None,
            read_while_planning,
            remote: None,
        })
    }

    fn into_remote(self, name: String, kind: RemoteKind) -> Result<ServerEntry, String> {
        let error = |message: String| format!("server `{name}`: {message}");
        if self.command.is_some() || !self.args.is_empty() || !self.env.0.is_empty() {
            return Err(error("a `url` server has no `command`, `args` or `env`".into()));
        }
        let url = self.url.ok_or_else(|| error("`url` is missing".into()))?;
        remote::check_url(&url).map_err(error)?;
        for (header, value) in &self.headers.0 {
            remote::check_header(header, value).map_err(error)?;
        }
        let (client, scopes) = match self.oauth {
            None => (None, Vec::new()),
            Some(oauth) => {
                let client = match oauth.client_id {
                    Some(id) if id.trim().is_empty() => {
                        return Err(error("`oauth.clientId` is empty".into()))
                    }
                    Some(client_id) => {
                        Some(PreRegistered { client_id, client_secret: oauth.client_secret })
                    }
                    None if oauth.client_secret.is_some() => {
                        return Err(error("`oauth.clientSecret` needs `oauth.clientId`".into()))
                    }
                    None => None,
                };
                (client, oauth.scopes)
            }
        };
        let headers = self.headers.0;
        let typed = self.kind.is_some();
        let remote = Remote { url, kind, typed, headers, client, scopes };
        Ok(ServerEntry {
            name,
            command: String::new(),
            args: Vec::new(),
            env: Vec::new(),
            class: ServerClass::Other,
            missing: None,
            read_while_planning: self.read_while_planning,
            remote: Some(remote),
        })
    }
}

/// A JSON object read in file order, where a key given twice is an error (serde_json would
/// silently keep the last one).
struct Ordered<T>(Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

struct OrderedVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
    type Value = Ordered<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
        let mut entries: Vec<(String, T)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!("`{key}` is given twice")));
            }
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Ordered(entries))
    }
}

#[cfg(test)]
mod tests;
