//! Preflight's code sandbox (DESIGN §11): an MCP server over stdio that runs commands, Python
//! and pip for one workspace, confined by bubblewrap where it works, and says plainly where not.
//!
//! The engine runs it as the `code-sandbox` entry of a chat with a workspace:
//!
//! ```text
//! preflight-sandbox --workspace DIR [--network] [--confinement auto|bubblewrap|none]
//!                   [--max-processes N] [--memory-mib N] [--max-file-mib N] [--python PATH]
//!                   [--allow-sdists] [--state-dir DIR]
//! preflight-sandbox --probe
//! ```
//!
//! - `--workspace DIR` (required): commands run there, read-write; the venv lives in
//!   `DIR/.sandbox/venv`, created on first need with `/usr/bin/python3 -m venv` and reused.
//!   `.sandbox` is read-only inside every run but pip's own (`install_packages`), so only pip
//!   and the packages it installs change the venv; a `.sandbox` or `.sandbox/venv` that is a
//!   link or not a folder is refused, and nothing is made through it (`venv.rs`).
//! - The network: commands and Python have none (a network namespace of their own) unless
//!   `--network` gives them the host's (`[sandbox] network`). `--no-network`, once the
//!   switch, is the default and still accepted. `install_packages`' pip always has an
//!   outbound-only network of its own made by `pasta` (Debian's `passt`): the internet and
//!   the LAN, never the host's loopback nor its abstract unix sockets; without a working
//!   pasta an install is refused, never run on the host's network (`outbound.rs`).
//! - pip runs as `python -I -m pip` from `/`, never importing from the workspace; it takes
//!   requirements by name only (no file, archive, path or URL) and installs wheels only,
//!   unless `--allow-sdists` lets it build source distributions (their setup.py runs
//!   confined, with pip's network). What is installed is read from the venv's
//!   `*.dist-info/METADATA` files, never by running the venv's Python.
//! - The view (`confine.rs`): an allowlist, not the host's root with parts hidden: `/usr`,
//!   `/etc` and the `/bin`, `/lib*` links read-only, fresh `/dev`, `/proc`, `/tmp`, `/run` and
//!   `/var/tmp`, an empty home (emptied again over the workspace when it lies inside it), the
//!   workspace read-write with every `.git` in it (any depth, folder or file, any case), the
//!   folders their `gitdir:` lines name and the `.dwp` plan folder read-only on top, found by
//!   a bounded walk that follows no link (`watch.rs`; a folder's listing is reused while its
//!   ctime holds, `listings.rs`), and `.sandbox` read-only but to pip. No host socket path
//!   exists inside.
//! - After every run (`quarantine.rs`) a `.git` or `.dwp` that it created or replaced is
//!   renamed aside (`lib/.git` to `lib/.git.quarantined-by-preflight-1`, never deleted), and the
//!   result says so with how to restore it: git would run what a planted one names as the user.
//! - `--confinement auto` (default) uses bubblewrap when it is installed and can build its
//!   namespaces here, otherwise runs unconfined and says so in every tool description, in
//!   `sandbox_info` and on the first line of every result. `bubblewrap` refuses to start
//!   without it; `none` is unconfined on purpose (benchmarks). Once found to work, a failure
//!   of bubblewrap at run time is that run's failure with its words, never an unconfined
//!   run. The initialize result says which, as `capabilities.experimental
//!   ["preflight/confinement"] = {"confined": bool, "reason": string|null}`.
//! - `--max-processes` (default 512) and `--memory-mib` (default 2048): per-run limits through
//!   a child cgroup (v1 `pids`/`memory`, or v2), or a systemd user scope; `sandbox_info` says
//!   which hold. `--max-file-mib` (default 4096): the largest file a run may write.
//! - `--python PATH`: the interpreter that creates the venv (default Debian's `/usr/bin/python3`).
//! - `--state-dir DIR`: where the venvs it made are recorded (the engine gives the data
//!   folder's `sandbox/`); a `.sandbox/venv` not recorded there came with the workspace and is
//!   neither run nor put on PATH (`venv.rs`).
//! - `--probe`: prints whether runs can be confined here, as one JSON line, and exits.
//! - `--adopt-venv`: records an unrecorded `.sandbox/venv` as this sandbox's when it is one an
//!   earlier Preflight made (`adopt/`: its layout, its interpreter and its pip checked as
//!   data, nothing of it run), prints one JSON line and exits. The engine runs it only at
//!   the user's word; until then such a venv is refused like any other unrecorded one, with
//!   its own error (`VenvAdoptable`) that says how to adopt it.
//!
//! Tools: `run_command {command, timeout_s?, cwd?}`, `run_python {code, timeout_s?}`,
//! `install_packages {packages, timeout_s?}`, `sandbox_info {}`. Runs return text and
//! `structuredContent {exit_code, stdout, stderr, timed_out, truncated, duration_ms}`, plus
//! `quarantined: [{path, moved_to, reason}]` when a run planted a `.git` or `.dwp` and
//! `guard_incomplete` when the walk stopped at its caps.
//! The server's own stdout is the MCP channel; it logs one line to stderr at start.

pub mod adopt;
pub mod cli;
pub mod confine;
pub mod env;
pub mod error;
pub mod info;
pub mod limits;
pub mod listings;
pub mod names;
pub mod outbound;
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
