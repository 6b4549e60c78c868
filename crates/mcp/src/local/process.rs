//! One server's operating-system process: spawned as the leader of its own process group,
//! stderr drained into the log, the whole group killed when the host is done with it.
//!
//! - An undrained stderr pipe fills (64 KiB) and a chatty server blocks on its next write,
//!   hanging every call: a task reads it from the start, line by line, into `tracing`
//!   (target `preflight::mcp::stderr`), and keeps the last lines to explain a failed start.
//! - Servers start helpers (npx starts node; node servers start shells); a helper that
//!   ignores stdin closing survives a kill of the leader alone. The server leads a new
//!   process group and the group is signalled: SIGTERM then SIGKILL at shutdown, SIGKILL
//!   when a `ServerProcess` is dropped any other way.

use std::collections::VecDeque;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

use crate::error::McpError;
use crate::local::launch::{resolve_program, Launch};

/// How many stderr lines are kept to explain a failed start, and how long each may be.
const TAIL_LINES: usize = 12;
const TAIL_LINE_CHARS: usize = 400;
/// A longer stderr line is logged in pieces of this size.
const LOG_PIECE: u64 = 8 * 1024;

pub(crate) struct ServerProcess {
    child: Child,
    pgid: libc::pid_t,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    group_killed: bool,
}

pub(crate) struct Pipes {
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

/// Spawns `launch` for `server` as a process-group leader, its program resolved to an
/// absolute path first (`launch::resolve_program`), with nothing of this process's
/// environment but `launch.base`. Needs a tokio runtime.
pub(crate) fn spawn(server: &str, launch: &Launch) -> Result<(ServerProcess, Pipes), McpError> {
    let base = &launch.base;
    let program = resolve_program(server, &launch.program, base, launch.workspace.as_deref())?;
    let mut command = Command::new(&program);
    command
        .args(&launch.args)
        .env_clear()
        .envs(base.vars.iter().map(|(k, v)| (k, v)))
        .envs(launch.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .current_dir(&base.working_dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let spawn_error = |message: String| McpError::Spawn { server: server.to_string(), message };
    let mut child =
        command.spawn().map_err(|e| spawn_error(format!("`{}`: {e}", program.display())))?;
    let pid = child.id().ok_or_else(|| spawn_error("it exited at once".into()))?;
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err(spawn_error("its pipes were not set up".into()));
    };
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    tokio::spawn(drain_stderr(server.to_string(), stderr, stderr_tail.clone()));
    let process =
        ServerProcess { child, pgid: pid as libc::pid_t, stderr_tail, group_killed: false };
    Ok((process, Pipes { stdin, stdout }))
}

impl ServerProcess {
    pub(crate) fn pid(&self) -> u32 {
        self.pgid as u32
    }

    /// Whether the server process has exited (reaping it if so).
    pub(crate) fn has_exited(&mut self) -> bool {
        !matches!(self.child.try_wait(), Ok(None))
    }

    /// The exit status, waiting at most `patience` for it.
    pub(crate) async fn exit_status(&mut self, patience: Duration) -> Option<ExitStatus> {
        tokio::time::timeout(patience, self.child.wait()).await.ok()?.ok()
    }

    /// The last lines the server wrote to stderr, oldest first.
    pub(crate) fn stderr_tail(&self) -> Vec<String> {
        self.stderr_tail.lock().map(|tail| tail.iter().cloned().collect()).unwrap_or_default()
    }

    /// SIGTERM to the group, up to `grace` for the server to exit, then SIGKILL to the group
    /// (helpers that ignored SIGTERM included) and reap the server.
    pub(crate) async fn shutdown(mut self, grace: Duration) {
        self.signal_group(libc::SIGTERM);
        let exited = tokio::time::timeout(grace, self.child.wait()).await.is_ok();
        self.signal_group(libc::SIGKILL);
        self.group_killed = true;
        if !exited {
            let _ = self.child.wait().await;
        }
    }

    fn signal_group(&self, signal: libc::c_int) {
        // SAFETY: killpg has no memory-safety preconditions; an error (ESRCH: the group is
        // already gone) needs no handling.
        unsafe {
            libc::killpg(self.pgid, signal);
        }
    }
}

/// Whether child `pid` of this process has exited, without reaping it: `waitid` with
/// `WNOWAIT` only looks, so any task may ask while the registry keeps the `Child`. A pid
/// that is no longer our child (already reaped) counts as exited.
pub(crate) fn has_exited_without_reaping(pid: u32) -> bool {
    // SAFETY: `info` is a plain C struct that waitid fills; zeroed is a valid value for it.
    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
    let flags = libc::WEXITED | libc::WNOHANG | libc::WNOWAIT;
    // SAFETY: waitid writes only into `info`, which lives until it returns.
    let answer = unsafe { libc::waitid(libc::P_PID, pid as libc::id_t, &mut info, flags) };
    // SAFETY: reading si_pid of a siginfo that waitid filled (or left zeroed).
    answer != 0 || unsafe { info.si_pid() } != 0
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if !self.group_killed {
            self.signal_group(libc::SIGKILL);
        }
    }
}

async fn drain_stderr(server: String, stderr: ChildStderr, tail: Arc<Mutex<VecDeque<String>>>) {
    let mut reader = BufReader::new(stderr);
    let mut piece = Vec::new();
    loop {
        piece.clear();
        match (&mut reader).take(LOG_PIECE).read_until(b'\n', &mut piece).await {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let text = String::from_utf8_lossy(&piece);
        let line = text.trim_end_matches(['\n', '\r']);
        tracing::info!(target: "preflight::mcp::stderr", server = %server, "{line}");
        if let Ok(mut tail) = tail.lock() {
            if tail.len() == TAIL_LINES {
                tail.pop_front();
            }
            tail.push_back(line.chars().take(TAIL_LINE_CHARS).collect());
        }
    }
}
