//! Shared by the `mcp_*` tests: paths of the real servers, a temp `PREFLIGHT_HOME` with a
//! workspace, workspace snapshots, and process checks through /proc and pidfds.

use std::collections::BTreeMap;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::time::Duration;

use preflight_mcp::{McpHost, McpOptions, Profile};
use tempfile::TempDir;
use tokio::io::unix::AsyncFd;
use tokio_util::sync::CancellationToken;

/// The pinned filesystem server: `PREFLIGHT_FS_SERVER` (set by scripts/test.sh), else where
/// the set-up installs it.
pub fn fs_server() -> PathBuf {
    match std::env::var_os("PREFLIGHT_FS_SERVER") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
        )),
    }
}

/// The scripted test server (tests/fixtures/mcp/server.js).
pub fn fixture() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/mcp/server.js").to_string()
}

/// A data folder and a workspace with a few files, both temporary.
pub struct Home {
    pub data: TempDir,
    pub workspace: TempDir,
}

impl Home {
    pub fn new() -> Home {
        let home =
            Home { data: tempfile::tempdir().unwrap(), workspace: tempfile::tempdir().unwrap() };
        let ws = home.workspace.path();
        std::fs::write(ws.join("README.md"), "# Demo\nhello\n").unwrap();
        std::fs::create_dir_all(ws.join("src/nested")).unwrap();
        std::fs::write(ws.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(ws.join("src/nested/data.txt"), "one\ntwo\n").unwrap();
        home
    }

    pub fn ws(&self) -> &Path {
        self.workspace.path()
    }

    /// Test defaults: generous starts (node on a loaded machine), short grace.
    pub fn config(&self) -> McpOptions {
        let mut config = McpOptions::new(self.data.path(), fs_server());
        config.start_timeout = Duration::from_secs(60);
        config.call_timeout = Duration::from_secs(60);
        config.shutdown_grace = Duration::from_millis(500);
        config
    }

    pub fn write_mcp_json(&self, json: &serde_json::Value) {
        std::fs::write(self.data.path().join("mcp.json"), serde_json::to_vec_pretty(json).unwrap())
            .unwrap();
    }

    pub fn host(&self) -> McpHost {
        McpHost::start(self.config()).expect("the host starts")
    }
}

/// An `mcp.json` entry running the fixture server with `flags`.
pub fn fixture_entry(flags: &[&str]) -> serde_json::Value {
    let mut args = vec![fixture()];
    args.extend(flags.iter().map(|f| f.to_string()));
    serde_json::json!({"command": "node", "args": args})
}

/// Every folder listing and every file's bytes under `root`: equal snapshots mean a
/// byte-identical tree.
pub fn snapshot(root: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let mut names: Vec<String> = Vec::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            names.push(format!(
                "{}{}",
                entry.file_name().to_string_lossy(),
                if kind.is_dir() { "/" } else { "" }
            ));
            if kind.is_dir() {
                stack.push(entry.path());
            } else {
                out.insert(entry.path(), std::fs::read(entry.path()).unwrap());
            }
        }
        names.sort();
        out.insert(dir.join("<listing>"), names.join("\n").into_bytes());
    }
    out
}

/// Calls `name` and returns the output (a fresh, never-cancelled token).
pub async fn call(
    host: &McpHost,
    profile: Profile,
    ws: Option<&Path>,
    name: &str,
    args: serde_json::Value,
) -> preflight_protocol::tool::ToolOutput {
    host.call(profile, ws, name, args, &CancellationToken::new()).await
}

/// The pid of the running `server`.
pub async fn pid_of(host: &McpHost, server: &str) -> u32 {
    let running = host.running_servers().await.unwrap();
    running
        .iter()
        .find(|r| r.server == server)
        .unwrap_or_else(|| panic!("{server} in {running:?}"))
        .pid
        .expect("a process")
}

/// (state, process group) of `pid` from /proc, or None when there is no such process.
fn stat(pid: u32) -> Option<(char, u32)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid pgrp …`; comm may hold spaces and parentheses.
    let rest = &text[text.rfind(')')? + 2..];
    let mut fields = rest.split(' ');
    let state = fields.next()?.chars().next()?;
    let _ppid = fields.next()?;
    Some((state, fields.next()?.parse().ok()?))
}

/// Whether `pid` runs (a zombie has ended: it only waits to be reaped).
pub fn is_alive(pid: u32) -> bool {
    matches!(stat(pid), Some((state, _)) if state != 'Z')
}

/// The live processes of process group `pgid`.
pub fn group_members(pgid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| matches!(stat(*pid), Some((state, group)) if group == pgid && state != 'Z'))
        .collect()
}

/// Waits until `pid` has exited, on a pidfd (no polling, no sleeping).
pub async fn wait_exit(pid: u32) {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd or -1.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) };
    if fd < 0 {
        return; // Already gone (and reaped).
    }
    // SAFETY: the fd was just opened and is owned by nobody else.
    let fd = unsafe { OwnedFd::from_raw_fd(fd as i32) };
    // SAFETY: the AsyncFd owns the fd and nothing replaces or closes it meanwhile.
    let fd = unsafe { AsyncFd::register_with_interest(fd, tokio::io::Interest::READABLE) }.unwrap();
    let _ = fd.readable().await.unwrap();
}

pub fn kill(pid: u32, signal: libc::c_int) {
    // SAFETY: kill has no memory-safety preconditions.
    assert_eq!(unsafe { libc::kill(pid as libc::pid_t, signal) }, 0, "kill {pid}");
}
