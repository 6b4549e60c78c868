//! The entries the host supplies when `mcp.json` has none of their kind: the filesystem
//! server and Preflight's code sandbox, built from the embedder's paths passed in as a
//! [`Supplied`] value (whether those programs exist is the only thing looked at).

use std::path::{Path, PathBuf};

use crate::classify::ServerClass;
use crate::config::entry::ServerEntry;
use crate::config::names::{CODE_SANDBOX, FILESYSTEM, WORKSPACE_VAR};
use crate::confinement::ConfinementMode;

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
    /// `[sandbox] confinement`: passed as `--confinement` unless it is `auto` (the sandbox's
    /// own default). The engine turns `auto` into `bubblewrap` where its probe found
    /// bubblewrap working, so the server refuses to start rather than fall back to unconfined.
    pub confinement: ConfinementMode,
    /// `[sandbox] allow_sdists`: `true` runs the server with `--allow-sdists` (pip may build
    /// source distributions; without it installs take wheels only).
    pub allow_sdists: bool,
    /// Variables the server gets besides the inherited allowlist: the embedder passes its
    /// `PIP_*` settings (index, find-links, proxies), which DESIGN §11 lets into runs.
    pub env: Vec<(String, String)>,
}

/// What the supplied entries are built from: the embedder's paths (an `&McpOptions` converts
/// into it), so that reading `mcp.json` needs nothing of the host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Supplied<'a> {
    /// `$PREFLIGHT_HOME`: the sandbox keeps its state under it.
    pub data_dir: &'a Path,
    /// The filesystem server's `dist/index.js`; absolute, or it counts as not installed.
    pub filesystem_server: &'a Path,
    /// The Node.js binary that runs it.
    pub node: &'a Path,
    /// The `code-sandbox` entry to supply; `None`: no sandbox.
    pub sandbox: Option<&'a SandboxDefault>,
}

/// The data folder's `sandbox/`: the supplied sandbox's `--state-dir`, where it records the
/// venvs it made (or the user adopted).
pub fn sandbox_state_dir(data_dir: &Path) -> PathBuf {
    data_dir.join("sandbox")
}

/// Preflight's sandbox server for `${workspace}`, recording the venvs it makes in the data
/// folder's `sandbox/` (outside every workspace); `missing` says why it cannot run when the
/// binary is not there.
pub fn default_sandbox(sandbox: &SandboxDefault, data_dir: &Path) -> ServerEntry {
    let program = &sandbox.program;
    let mut args = vec!["--workspace".to_owned(), WORKSPACE_VAR.to_owned()];
    args.push("--state-dir".to_owned());
    args.push(sandbox_state_dir(data_dir).to_string_lossy().into_owned());
    if sandbox.network {
        args.push("--network".to_owned());
    }
    if let Some(mib) = sandbox.max_file_mib {
        args.extend(["--max-file-mib".to_owned(), mib.to_string()]);
    }
    if sandbox.allow_sdists {
        args.push("--allow-sdists".to_owned());
    }
    if sandbox.confinement != ConfinementMode::Auto {
        args.extend(["--confinement".to_owned(), sandbox.confinement.sandbox_argument().into()]);
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
pub fn default_filesystem<'a>(supplied: impl Into<Supplied<'a>>) -> ServerEntry {
    let supplied = supplied.into();
    let script = supplied.filesystem_server;
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
        command: supplied.node.to_string_lossy().into_owned(),
        class: ServerClass::Filesystem,
        args,
        env: Vec::new(),
        missing,
        read_while_planning: false,
        remote: None,
    }
}
