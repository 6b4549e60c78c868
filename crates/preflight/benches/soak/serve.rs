//! The `preflight serve` process under test: started on a home, killed with SIGKILL (the
//! child's `kill`), restarted on the same home; and what `/proc` says of it (RSS, open
//! descriptors, the MCP servers it runs).

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use anyhow::{bail, Context};

/// Where the current process listens: what the workers read (a watch channel's value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub base: String,
    pub token: String,
    pub pid: u32,
    /// 0 for the first process, +1 at every restart.
    pub life: usize,
}

#[derive(Debug)]
pub struct ServeProcess {
    child: Child,
    pub endpoint: Endpoint,
}

impl ServeProcess {
    /// Starts `preflight serve` on `home` and waits for its `listening on` line.
    pub fn start(home: &Path, life: usize) -> anyhow::Result<ServeProcess> {
        let log = std::fs::File::create(log_path(home, life)).context("serve's log")?;
        let mut child = Command::new(env!("CARGO_BIN_EXE_preflight"))
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("PREFLIGHT_HOME", home)
            .env("RUST_LOG", "warn")
            .env("PREFLIGHT_FS_SERVER", fs_server())
            .stdout(Stdio::piped())
            .stderr(log)
            .spawn()
            .context("starting preflight serve")?;
        let mut line = String::new();
        let stdout = child.stdout.take().context("serve's stdout")?;
        BufReader::new(stdout).read_line(&mut line).context("reading serve's first line")?;
        let Some(base) = line.trim().strip_prefix("listening on ") else {
            let _ = child.kill();
            let _ = child.wait();
            bail!("serve's first line was {line:?}");
        };
        let token = std::fs::read_to_string(home.join("api-token")).context("the api token")?;
        let pid = child.id();
        let endpoint =
            Endpoint { base: base.to_owned(), token: token.trim().to_owned(), pid, life };
        Ok(ServeProcess { child, endpoint })
    }

    /// SIGKILL, then reaps it.
    pub fn kill(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM (serve's orderly stop), then waits for it to exit.
    pub fn terminate(mut self) -> anyhow::Result<()> {
        let status = Command::new("kill")
            .args(["-TERM", &self.child.id().to_string()])
            .status()
            .context("running kill")?;
        if !status.success() {
            bail!("kill -TERM failed");
        }
        self.child.wait().context("waiting for serve to stop")?;
        Ok(())
    }
}

/// Where process `life`'s stderr goes: beside the data folder.
pub fn log_path(home: &Path, life: usize) -> PathBuf {
    home.with_file_name(format!("serve-{life}.log"))
}

/// `VmRSS` of `pid` in KiB, `None` once it is gone.
pub fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// How many descriptors `pid` has open.
pub fn open_fds(pid: u32) -> Option<usize> {
    Some(std::fs::read_dir(format!("/proc/{pid}/fd")).ok()?.count())
}

/// The descendants of `pid` whose command line contains `needle`.
pub fn descendants_running(pid: u32, needle: &str) -> Vec<u32> {
    let mut parents: Vec<(u32, u32)> = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(child) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok())
        else {
            continue;
        };
        if let Some(parent) = parent_of(child) {
            parents.push((child, parent));
        }
    }
    let mut family = vec![pid];
    let mut index = 0;
    while index < family.len() {
        let parent = family[index];
        family.extend(parents.iter().filter(|(_, p)| *p == parent).map(|(c, _)| *c));
        index += 1;
    }
    family.retain(|&member| member != pid && command_line(member).contains(needle));
    family
}

fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // `pid (comm) state ppid …`: comm may hold spaces and parentheses; the last `)` ends it.
    let rest = &stat[stat.rfind(')')? + 1..];
    rest.split_whitespace().nth(1)?.parse().ok()
}

fn command_line(pid: u32) -> String {
    let raw = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    String::from_utf8_lossy(&raw).replace('\0', " ")
}

/// Processes anywhere on the machine whose command line contains `needle` (what a killed
/// serve may have left behind).
pub fn processes_running(needle: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) {
            if command_line(pid).contains(needle) {
                found.push(pid);
            }
        }
    }
    found
}

/// SIGKILL to each of `pids`; how many it reached.
pub fn kill_all(pids: &[u32]) -> usize {
    pids.iter()
        .filter(|pid| {
            Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|status| status.success())
        })
        .count()
}

/// The everything MCP server of `tests/peers`.
pub fn everything_server() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(
        "../../tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    )
}

/// The filesystem MCP server set-up installed (`$PREFLIGHT_FS_SERVER` first).
pub fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        )
    })
}

/// The processes that have `file` open, with their command lines.
pub fn holders_of(file: &Path) -> Vec<String> {
    let mut holders = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|name| name.parse::<u32>().ok()) else {
            continue;
        };
        let fds = std::fs::read_dir(format!("/proc/{pid}/fd")).into_iter().flatten().flatten();
        if fds
            .into_iter()
            .any(|fd| std::fs::read_link(fd.path()).is_ok_and(|target| target == file))
        {
            holders.push(format!("{pid} (parent {:?}): {}", parent_of(pid), command_line(pid)));
        }
    }
    holders
}
