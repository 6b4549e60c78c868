//! One run: the wrapped command as a process-group leader inside its cgroups (handed to a
//! helper made ready there ahead of time, `prepared.rs`, or spawned directly), both streams'
//! tails captured, the timeout enforced, and nothing left behind.

use crate::confine::Jail;
use crate::error::SandboxError;
use crate::limits::join_before_exec;
use crate::output::{TailBuffer, STREAM_CAP};
use crate::quarantine::GuardReport;
use crate::request::RunRequest;
use std::future::Future;
use std::os::unix::process::ExitStatusExt;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::task::JoinHandle;

/// How long to wait for the streams to close once the command and its group are gone.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// A finished run (DESIGN §11's `structuredContent`, plus what the limits did).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunOutcome {
    pub exit_code: i32,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub truncated: bool,
    pub duration_ms: u64,
    /// Limits that were hit, in plain words.
    pub limit_notes: Vec<String>,
    /// The `.git` and `.dwp` entries renamed aside after the run (filled in by the server).
    pub guard: GuardReport,
}

/// Runs `request` confined by `jail`. Ends early (killing everything) when `cancelled` resolves.
pub async fn run(
    jail: &Jail,
    request: &RunRequest,
    cancelled: impl Future<Output = ()>,
) -> Result<RunOutcome, SandboxError> {
    let started = Instant::now();
    let protected = request.protected.as_deref();
    let words = jail.wrap(&request.cwd, &request.reach, protected, &request.argv)?;
    // A ready helper's stdin carries its order, so a run with input of its own starts directly.
    let ready = match request.stdin {
        None => jail.launcher.start(&words, request).await,
        Some(_) => None,
    };
    let (mut child, cgroups) = match ready {
        Some(ready) => ready?,
        None => {
            let cgroups = jail.limits.create_run()?;
            (spawn(&words, request, cgroups.join_fds(), jail.limits.file_bytes)?, cgroups)
        }
    };
    jail.launcher.replenish(&jail.limits);
    feed(&mut child, request.stdin.clone());
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let (status, timed_out) = wait_or_kill(&mut child, request.timeout, cancelled).await?;
    if let Some(leader) = child.id() {
        kill_group(leader);
    }
    let mut limit_notes = cgroups.events();
    // Anything left (a child that left the process group) is killed now; waiting for the
    // cgroups to empty and removing them happens off the result's path.
    cgroups.kill_remaining();
    drop(tokio::task::spawn_blocking(move || cgroups.finish()));
    let (stdout, out_cut) = collect(stdout).await;
    let (stderr, err_cut) = collect(stderr).await;
    let exit_code = exit_code(status);
    limit_notes.extend(jail.limits.file_cap_note(exit_code, &stderr));
    Ok(RunOutcome {
        exit_code,
        stdout,
        stderr,
        timed_out,
        truncated: out_cut || err_cut,
        duration_ms: started.elapsed().as_millis() as u64,
        limit_notes,
        guard: GuardReport::default(),
    })
}

fn spawn(
    words: &[String],
    request: &RunRequest,
    join_fds: Vec<i32>,
    file_bytes: u64,
) -> Result<Child, SandboxError> {
    let mut command = Command::new(&words[0]);
    command.args(&words[1..]).env_clear().envs(request.env.iter().cloned());
    let stdin = if request.stdin.is_some() { Stdio::piped() } else { Stdio::null() };
    command.current_dir(&request.cwd).stdin(stdin);
    command.stdout(Stdio::piped()).stderr(Stdio::piped()).kill_on_drop(true);
    command.process_group(0);
    join_before_exec(&mut command, join_fds, file_bytes);
    command.spawn().map_err(|source| SandboxError::Spawn { program: words[0].clone(), source })
}

/// Writes `input` to the child's stdin in the background and closes it; a command that exits
/// without reading it all only ends the write.
fn feed(child: &mut Child, input: Option<Vec<u8>>) {
    let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) else { return };
    tokio::spawn(async move {
        let _ = stdin.write_all(&input).await;
    });
}

/// Waits for the command; on timeout or cancellation kills its whole group and reaps it.
async fn wait_or_kill(
    child: &mut Child,
    timeout: Duration,
    cancelled: impl Future<Output = ()>,
) -> Result<(ExitStatus, bool), SandboxError> {
    let waited = tokio::select! {
        status = child.wait() => Some(status),
        _ = tokio::time::sleep(timeout) => None,
        _ = cancelled => None,
    };
    let reap = |e| SandboxError::io("waiting for the command", e);
    match waited {
        Some(status) => Ok((status.map_err(reap)?, false)),
        None => {
            if let Some(leader) = child.id() {
                kill_group(leader);
            }
            Ok((child.wait().await.map_err(reap)?, true))
        }
    }
}

/// SIGKILL to the process group led by `leader` (background children of an unconfined run;
/// under bubblewrap the PID namespace already ends with its first process).
fn kill_group(leader: u32) {
    // SAFETY: kill(2) on a negative pid signals the group we created with process_group(0).
    unsafe { libc::kill(-(leader as libc::pid_t), libc::SIGKILL) };
}

type Captured = (Arc<Mutex<TailBuffer>>, JoinHandle<()>);

fn drain(stream: Option<impl AsyncRead + Unpin + Send + 'static>) -> Captured {
    let buffer = Arc::new(Mutex::new(TailBuffer::new(STREAM_CAP)));
    let sink = buffer.clone();
    let task = tokio::spawn(async move {
        let Some(mut stream) = stream else { return };
        let mut chunk = vec![0u8; 16 * 1024];
        while let Ok(n @ 1..) = stream.read(&mut chunk).await {
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(&chunk[..n]);
        }
    });
    (buffer, task)
}

/// The captured tail, once the stream closes or the grace period ends.
async fn collect((buffer, task): Captured) -> (String, bool) {
    let abort = task.abort_handle();
    if tokio::time::timeout(DRAIN_GRACE, task).await.is_err() {
        abort.abort();
    }
    let mut buffer = buffer.lock().unwrap_or_else(|p| p.into_inner());
    buffer.finish()
}

/// The exit code, or 128 + the signal that ended the process, as shells report it.
fn exit_code(status: ExitStatus) -> i32 {
    status.code().or_else(|| status.signal().map(|s| 128 + s)).unwrap_or(-1)
}
