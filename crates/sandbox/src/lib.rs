//! Preflight's code sandbox (DESIGN §11): an MCP server over stdio that runs commands, Python
//! and pip for one workspace, confined by bubblewrap where it works, and says plainly where not.
//!
//! The engine runs it as the `code-sandbox` entry of a chat with a workspace:
//!
//! ```text
//! preflight-sandbox --workspace DIR [--network] [--confinement auto|bubblewrap|none]
//!                   [--max-processes N] [--memory-mib N] [--python PATH]
//! ```
//!
//! - `--workspace DIR` (required): commands run there, read-write; the venv lives in
//!   `DIR/.sandbox/venv`, created on first need with `/usr/bin/python3 -m venv` and reused.
//! - The network: `install_packages` has the host's; commands and Python have none (a network
//!   namespace of their own) unless `--network` gives it to them too (`[sandbox] network`).
//!   `--no-network`, once the switch, is the default and still accepted.
//! - The view (`confine.rs`): an allowlist, not the host's root with parts hidden: `/usr`,
//!   `/etc` and the `/bin`, `/lib*` links read-only, fresh `/dev`, `/proc`, `/tmp`, `/run` and
//!   `/var/tmp`, an empty home (emptied again over the workspace when it lies inside it), the
//!   workspace read-write with every `.git` in it (any depth, folder or file, any case), the
//!   folders their `gitdir:` lines name and the `.dwp` plan folder read-only on top, found by
//!   a bounded walk that follows no link (`watch.rs`; a folder's listing is reused while its
//!   ctime holds, `listings.rs`). No host socket path exists inside.
//! - After every run (`quarantine.rs`) a `.git` or `.dwp` that it created or replaced is
//!   renamed aside (`lib/.git` to `lib/.git.quarantined-by-preflight-1`, never deleted), and the
//!   result says so with how to restore it: git would run what a planted one names as the user.
//! - `--confinement auto` (default) uses bubblewrap when it is installed and can build its
//!   namespaces here, otherwise runs unconfined and says so in every tool description, in
//!   `sandbox_info` and on the first line of every result. `bubblewrap` refuses to start
//!   without it; `none` is unconfined on purpose (benchmarks).
//! - `--max-processes` (default 512) and `--memory-mib` (default 2048): per-run limits through
//!   a child cgroup (v1 `pids`/`memory`, or v2), or a systemd user scope; `sandbox_info` says
//!   which hold.
//! - `--python PATH`: the interpreter that creates the venv (default Debian's `/usr/bin/python3`).
//! - `--state-dir DIR`: where the venvs it made are recorded (the engine gives the data
//!   folder's `sandbox/`); a `.sandbox/venv` not recorded there came with the workspace and is
//!   neither run nor put on PATH (`venv.rs`).
//!
//! Tools: `run_command {command, timeout_s?, cwd?}`, `run_python {code, timeout_s?}`,
//! `install_packages {packages, timeout_s?}`, `sandbox_info {}`. Runs return text and
//! `structuredContent {exit_code, stdout, stderr, timed_out, truncated, duration_ms}`, plus
//! `quarantined: [{path, moved_to, reason}]` when a run planted a `.git` or `.dwp` and
//! `guard_incomplete` when the walk stopped at its caps.
//! The server's own stdout is the MCP channel; it logs one line to stderr at start.

pub mod cli;
pub mod confine;
pub mod env;
pub mod error;
pub mod info;
pub mod limits;
pub mod listings;
pub mod output;
pub mod paths;
pub mod prepared;
pub mod quarantine;
pub mod request;
pub mod run;
pub mod server;
pub mod tools;
pub mod venv;
pub mod watch;

pub use error::SandboxError;
pub use server::{Sandbox, SandboxServer};
