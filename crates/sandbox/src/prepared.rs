//! Runs started from a process made ready ahead of time. Joining a cgroup (v1 above all)
//! waits for an RCU grace period, some 10 ms on a loaded machine; paid on every run, it was
//! most of what confinement cost. So after each run begins, the next run's cgroups are made
//! and a helper — this binary in `--exec-helper` mode — is spawned into them, off the result's
//! path. The next run hands it its request (argv, working folder, environment) on stdin; it
//! execs the command at once, keeping its pid, its process group and its cgroups.
//!
//! One helper is kept ready per server; a run that finds none (the first, or one overlapping
//! another) starts its command directly as before.

use crate::error::SandboxError;
use crate::limits::{join_before_exec, Limits, RunCgroups};
use crate::request::RunRequest;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use tokio::io::AsyncWriteExt;
use tokio::process::{Child, Command};

/// The argument that makes `preflight-sandbox` a helper.
pub const HELPER_ARG: &str = "--exec-helper";

/// What a helper is told to run.
#[derive(Debug, Serialize, Deserialize)]
struct HelperRequest {
    argv: Vec<String>,
    cwd: PathBuf,
    env: Vec<(String, String)>,
}

/// A helper waiting in its cgroups for a run.
struct Prepared {
    child: Option<Child>,
    cgroups: Option<RunCgroups>,
}

impl Drop for Prepared {
    /// An unused helper (the server is stopping) dies and its cgroups go, before the server
    /// exits (a few milliseconds; a helper whose server died anyway reads end-of-file and
    /// exits).
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.start_kill();
        }
        if let Some(cgroups) = self.cgroups.take() {
            cgroups.kill_remaining();
            cgroups.finish();
        }
    }
}

/// The server's launcher: at most one helper ready at a time.
pub struct Launcher {
    helper: Option<PathBuf>,
    ready: Arc<Mutex<Option<Prepared>>>,
}

impl std::fmt::Debug for Launcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launcher").field("helper", &self.helper).finish_non_exhaustive()
    }
}

impl Launcher {
    /// Helpers run `program` (this binary); `None` starts every run directly.
    pub fn new(program: Option<PathBuf>) -> Launcher {
        Launcher { helper: program, ready: Arc::new(Mutex::new(None)) }
    }

    /// The ready helper given `words` to run, with its cgroups; `None` when none is ready.
    pub async fn start(
        &self,
        words: &[String],
        request: &RunRequest,
    ) -> Option<Result<(Child, RunCgroups), SandboxError>> {
        let mut prepared = self.ready.lock().unwrap_or_else(|p| p.into_inner()).take()?;
        let order = HelperRequest {
            argv: words.to_vec(),
            cwd: request.cwd.clone(),
            env: request.env.clone(),
        };
        let bytes = serde_json::to_vec(&order).expect("a request serialises");
        let (mut child, cgroups) = (prepared.child.take()?, prepared.cgroups.take()?);
        let mut stdin = child.stdin.take()?;
        let handed = stdin.write_all(&bytes).await;
        drop(stdin);
        if let Err(e) = handed {
            let _ = child.start_kill();
            cgroups.kill_remaining();
            std::thread::spawn(move || cgroups.finish());
            return Some(Err(SandboxError::io("handing the run to its helper", e)));
        }
        Some(Ok((child, cgroups)))
    }

    /// Makes the next helper ready in the background (no-op without a helper program).
    pub fn replenish(&self, limits: &Arc<Limits>) {
        let Some(program) = self.helper.clone() else { return };
        let (ready, limits) = (Arc::clone(&self.ready), Arc::clone(limits));
        tokio::task::spawn_blocking(move || {
            if ready.lock().unwrap_or_else(|p| p.into_inner()).is_some() {
                return;
            }
            match prepare(&program, &limits) {
                Ok(prepared) => {
                    let mut slot = ready.lock().unwrap_or_else(|p| p.into_inner());
                    if slot.is_none() {
                        *slot = Some(prepared);
                    }
                }
                Err(error) => eprintln!("preflight-sandbox: no helper made ready: {error}"),
            }
        });
    }
}

/// Creates a run's cgroups and spawns a helper into them (it joins before it execs).
fn prepare(program: &PathBuf, limits: &Limits) -> Result<Prepared, SandboxError> {
    let cgroups = limits.create_run()?;
    let join_fds = cgroups.join_fds();
    let mut command = Command::new(program);
    command.arg(HELPER_ARG).env_clear().current_dir("/");
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    command.kill_on_drop(true).process_group(0);
    join_before_exec(&mut command, join_fds, limits.file_bytes);
    match command.spawn() {
        Ok(child) => Ok(Prepared { child: Some(child), cgroups: Some(cgroups) }),
        Err(source) => {
            cgroups.finish();
            Err(SandboxError::Spawn { program: program.display().to_string(), source })
        }
    }
}

/// The helper's side: reads the request from stdin, then becomes the command. Returns only
/// when that fails (the exit code of a command not found, as shells give).
pub fn exec_request() -> std::process::ExitCode {
    let mut text = Vec::new();
    if let Err(e) = std::io::stdin().read_to_end(&mut text) {
        eprintln!("preflight-sandbox helper: reading the request: {e}");
        return std::process::ExitCode::from(127);
    }
    let request: HelperRequest = match serde_json::from_slice(&text) {
        Ok(request) => request,
        Err(e) => {
            eprintln!("preflight-sandbox helper: not a request: {e}");
            return std::process::ExitCode::from(127);
        }
    };
    let Some((program, args)) = request.argv.split_first() else {
        return std::process::ExitCode::from(127);
    };
    let mut command = std::process::Command::new(program);
    command.args(args).env_clear().envs(request.env).current_dir(&request.cwd);
    let error = command.stdin(Stdio::null()).exec();
    eprintln!("could not start {program}: {error}");
    std::process::ExitCode::from(127)
}
