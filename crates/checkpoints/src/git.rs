//! The one way this crate runs `git`: on the shadow repository, in a sanitised environment,
//! bounded by a time budget.
//!
//! **Invariant:** no git call reads the user's configuration, hooks, attributes or the
//! workspace's own `.git`: the environment is cleared, the repository, work tree and index
//! are named explicitly, and the settings that could run a program (hooks, fsmonitor,
//! filters through config) are pinned on the command line.
//! **Invariant:** a call past its deadline is killed with every process it started (each call
//! leads a process group of its own), and the caller gets `TimedOut`.

use std::ffi::{OsStr, OsString};
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use crate::error::CheckpointError;

/// The identity every checkpoint commit carries (never the user's).
const IDENTITY_NAME: &str = "Preflight";
const IDENTITY_EMAIL: &str = "checkpoints@preflight.invalid";
/// What git said on stderr, kept for an error message.
const STDERR_KEPT: usize = 16 * 1024;

/// Settings pinned on every call. The environment already keeps the user's and the system's
/// configuration out; these also hold against the shadow repository's own config file.
pub(crate) const PINNED: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.autocrlf=false",
    "core.symlinks=true",
    "core.quotepath=false",
    "core.attributesFile=/dev/null",
    "core.excludesFile=/dev/null",
    "gc.auto=0",
    "gc.autoDetach=false",
    "maintenance.auto=false",
    "commit.gpgsign=false",
    "submodule.recurse=false",
    "diff.external=",
    "color.ui=false",
];

/// When an operation (a snapshot, a diff, a restore) must be done by.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Deadline {
    at: Instant,
    budget: Duration,
}

impl Deadline {
    pub(crate) fn after(budget: Duration) -> Deadline {
        Deadline { at: Instant::now() + budget, budget }
    }

    fn remaining(&self) -> Duration {
        self.at.saturating_duration_since(Instant::now())
    }
}

/// The shadow repository as git is told about it.
#[derive(Debug, Clone)]
pub(crate) struct Git {
    git_dir: PathBuf,
    work_tree: PathBuf,
    index_file: PathBuf,
    /// The `git` program, found on the PATH without looking in the workspace.
    program: PathBuf,
    /// The PATH git runs with: the caller's, less relative folders and the workspace's.
    search_path: OsString,
}

impl Git {
    pub(crate) fn new(git_dir: &Path, work_tree: &Path) -> Git {
        let index_file = git_dir.join("index");
        let inherited =
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        let real_tree = std::fs::canonicalize(work_tree).unwrap_or_else(|_| work_tree.to_owned());
        let folders = trusted_folders(&inherited, &real_tree);
        let program = folders.iter().find_map(|folder| outside(&folder.join("git"), &real_tree));
        Git {
            git_dir: git_dir.to_owned(),
            work_tree: work_tree.to_owned(),
            index_file,
            program: program.unwrap_or_else(|| PathBuf::from("/nonexistent/git")),
            search_path: std::env::join_paths(folders).unwrap_or_default(),
        }
    }

    /// The same repository and work tree with another index file (a scratch index).
    pub(crate) fn with_index(&self, index_file: PathBuf) -> Git {
        Git { index_file, ..self.clone() }
    }

    pub(crate) fn index_file(&self) -> &Path {
        &self.index_file
    }

    /// Runs `git args…` with `input` on its stdin and returns its stdout.
    pub(crate) fn output(
        &self,
        args: &[&str],
        input: &[u8],
        deadline: Deadline,
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut stdout = Vec::new();
        self.stream(args, input, deadline, &mut |chunk| stdout.extend_from_slice(chunk))?;
        Ok(stdout)
    }

    /// Runs `git args…`, handing its stdout to `sink` a line at a time (a line ends with
    /// `\n`, except perhaps the last), so a large output need not be held whole.
    pub(crate) fn stream(
        &self,
        args: &[&str],
        input: &[u8],
        deadline: Deadline,
        sink: &mut (dyn FnMut(&[u8]) + Send),
    ) -> Result<(), CheckpointError> {
        let label = format!("git {}", args.join(" "));
        run_bounded(self.command(args), &label, input, deadline, sink)
    }

    /// Creates the repository at the git folder: bare (the work tree is named on each call,
    /// and git refuses one here), sha1 names, no template (no sample hooks, no exclude file).
    pub(crate) fn init_bare(&self, deadline: Deadline) -> Result<(), CheckpointError> {
        let args = ["init", "--bare", "--quiet", "--template=", "--object-format=sha1"];
        let mut command = self.command(&args);
        command.env_remove("GIT_WORK_TREE").current_dir(&self.git_dir);
        run_bounded(command, "git init --bare", b"", deadline, &mut |_| {})
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command.env_clear();
        command.env("PATH", &self.search_path);
        if let Some(lang) = std::env::var_os("LANG") {
            command.env("LANG", lang);
        }
        command
            .env("GIT_DIR", &self.git_dir)
            .env("GIT_WORK_TREE", &self.work_tree)
            .env("GIT_INDEX_FILE", &self.index_file)
            .env("HOME", &self.git_dir)
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_ATTR_NOSYSTEM", "1")
            .env("GIT_LITERAL_PATHSPECS", "1")
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .envs(identity(SystemTime::now()));
        for setting in PINNED {
            command.args(["-c", setting]);
        }
        command.args(args).current_dir(&self.work_tree);
        command
    }
}

/// The folders of `path` git may be run from, by their real paths: absolute ones outside the
/// workspace, so that a `git` the workspace holds (with `.`, `bin` or `node_modules/.bin` on
/// the PATH) is never run. Both sides are compared resolved: a folder named through a
/// symbolic link or a `..` is where it really is, and one that does not exist is dropped.
/// `real_tree` is the work tree resolved.
pub(crate) fn trusted_folders(path: &OsStr, real_tree: &Path) -> Vec<PathBuf> {
    std::env::split_paths(path)
        .filter(|folder| folder.is_absolute())
        .filter_map(|folder| outside(&folder, real_tree))
        .collect()
}

/// `path` resolved, when it exists and is not inside `real_tree` (the work tree resolved):
/// the `git` program itself may be a symbolic link into the workspace too.
pub(crate) fn outside(path: &Path, real_tree: &Path) -> Option<PathBuf> {
    let real = std::fs::canonicalize(path).ok()?;
    (!real.starts_with(real_tree) && (real.is_dir() || real.is_file())).then_some(real)
}

/// The fixed author and committer, dated by the caller's clock.
fn identity(now: SystemTime) -> [(&'static str, OsString); 6] {
    let seconds = now.duration_since(UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0);
    let date = OsString::from(format!("@{seconds} +0000"));
    [
        ("GIT_AUTHOR_NAME", IDENTITY_NAME.into()),
        ("GIT_AUTHOR_EMAIL", IDENTITY_EMAIL.into()),
        ("GIT_AUTHOR_DATE", date.clone()),
        ("GIT_COMMITTER_NAME", IDENTITY_NAME.into()),
        ("GIT_COMMITTER_EMAIL", IDENTITY_EMAIL.into()),
        ("GIT_COMMITTER_DATE", date),
    ]
}

/// Runs `command` in a process group of its own, feeding `input` and streaming stdout to
/// `sink`; kills the group at the deadline. A non-zero exit is `Git` with its stderr.
pub(crate) fn run_bounded(
    mut command: Command,
    label: &str,
    input: &[u8],
    deadline: Deadline,
    sink: &mut (dyn FnMut(&[u8]) + Send),
) -> Result<(), CheckpointError> {
    let timed_out =
        || CheckpointError::TimedOut { command: label.to_owned(), budget: deadline.budget };
    if deadline.remaining().is_zero() {
        return Err(timed_out());
    }
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).process_group(0);
    let mut child = command.spawn().map_err(|error| spawn_error(&command, error))?;
    let (status, stderr, killed) = supervise(&mut child, input, deadline, sink)
        .map_err(|error| CheckpointError::io(command.get_program(), error))?;
    if killed {
        return Err(timed_out());
    }
    if !status.success() {
        let stderr = String::from_utf8_lossy(&stderr).trim().to_owned();
        let stderr = if stderr.is_empty() { status.to_string() } else { stderr };
        return Err(CheckpointError::Git { command: label.to_owned(), stderr });
    }
    Ok(())
}

/// Why `command` did not start: a missing program is `GitMissing`, a missing work tree (the
/// other `NotFound` a spawn gives) is `Io` naming it.
fn spawn_error(command: &Command, error: io::Error) -> CheckpointError {
    match (error.kind(), command.get_current_dir()) {
        (io::ErrorKind::NotFound, Some(dir)) if !dir.is_dir() => CheckpointError::io(dir, error),
        (io::ErrorKind::NotFound, _) => CheckpointError::GitMissing,
        _ => CheckpointError::io(command.get_program(), error),
    }
}

/// Feeds, drains and waits for `child`, killing its group at the deadline. Returns its
/// status, the start of its stderr and whether it was killed.
fn supervise(
    child: &mut Child,
    input: &[u8],
    deadline: Deadline,
    sink: &mut (dyn FnMut(&[u8]) + Send),
) -> io::Result<(ExitStatus, Vec<u8>, bool)> {
    let pid = child.id();
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let (exited, exit_seen) = mpsc::channel::<()>();
    let (killed, stderr) = thread::scope(|scope| {
        scope.spawn(move || feed(stdin, input));
        scope.spawn(move || drain_lines(stdout, sink));
        let stderr = scope.spawn(move || keep_start(stderr));
        let watchdog = scope.spawn(move || match exit_seen.recv_timeout(deadline.remaining()) {
            Err(mpsc::RecvTimeoutError::Timeout) => kill_group(pid),
            _ => false,
        });
        let waited = wait_without_reaping(pid);
        let _ = exited.send(());
        let killed = watchdog.join().unwrap_or(false);
        waited.map(|()| (killed, stderr.join().unwrap_or_default()))
    })?;
    // Reaped only now: until here the pid (and so the group) cannot be reused, so the
    // watchdog's kill could reach no other process.
    let status = child.wait()?;
    Ok((status, stderr, killed))
}

fn feed(stdin: Option<impl Write>, input: &[u8]) {
    if let Some(mut stdin) = stdin {
        // A git that exits without reading all of its input is not an error here: its exit
        // status says what happened.
        let _ = stdin.write_all(input);
    }
}

fn drain_lines(stdout: Option<impl Read>, sink: &mut (dyn FnMut(&[u8]) + Send)) {
    let Some(stdout) = stdout else { return };
    let mut reader = BufReader::with_capacity(64 * 1024, stdout);
    let mut line = Vec::new();
    while matches!(reader.read_until(b'\n', &mut line), Ok(n) if n > 0) {
        sink(&line);
        line.clear();
    }
}

fn keep_start(stderr: Option<impl Read>) -> Vec<u8> {
    let Some(mut stderr) = stderr else { return Vec::new() };
    let mut kept = Vec::new();
    let mut buffer = [0u8; 4096];
    while let Ok(n @ 1..) = stderr.read(&mut buffer) {
        let room = STDERR_KEPT.saturating_sub(kept.len());
        kept.extend_from_slice(&buffer[..n.min(room)]);
    }
    kept
}

/// Blocks until the process `pid` has exited, leaving it a zombie (not reaped).
fn wait_without_reaping(pid: u32) -> io::Result<()> {
    let id = libc::id_t::try_from(pid).map_err(io::Error::other)?;
    loop {
        // SAFETY: `info` is a plain C struct that zeroed memory initialises; waitid writes
        // into it and into nothing else.
        let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
        // SAFETY: waitid on our own child with a valid pointer; WNOWAIT leaves the child
        // unreaped, so `Child::wait` still reaps it.
        let result =
            unsafe { libc::waitid(libc::P_PID, id, &mut info, libc::WEXITED | libc::WNOWAIT) };
        if result == 0 {
            return Ok(());
        }
        let error = io::Error::last_os_error();
        if error.kind() != io::ErrorKind::Interrupted {
            return Err(error);
        }
    }
}

/// Kills the process group `pid` leads. Returns true (the call was stopped).
fn kill_group(pid: u32) -> bool {
    if let Ok(group) = libc::pid_t::try_from(pid) {
        // SAFETY: a plain system call; the group is our unreaped child's, so it names no
        // other process.
        unsafe { libc::killpg(group, libc::SIGKILL) };
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(script: &str, budget: Duration) -> Result<Vec<u8>, CheckpointError> {
        let mut command = Command::new("/bin/sh");
        command.args(["-c", script]);
        let mut out = Vec::new();
        let deadline = Deadline::after(budget);
        run_bounded(command, "sh", b"fed\n", deadline, &mut |chunk| out.extend_from_slice(chunk))?;
        Ok(out)
    }

    #[test]
    fn output_input_and_failure_come_through() {
        assert_eq!(run("cat; echo two", Duration::from_secs(10)).unwrap(), b"fed\ntwo\n");
        let error = run("echo bad >&2; exit 3", Duration::from_secs(10)).unwrap_err();
        assert!(
            matches!(&error, CheckpointError::Git { stderr, .. } if stderr == "bad"),
            "{error}"
        );
    }

    #[test]
    fn a_call_past_its_budget_is_killed_with_its_children() {
        let started = Instant::now();
        // The background sleep holds stdout open: it must die too, or the call would hang.
        let error = run("sleep 30 & sleep 30; wait", Duration::from_millis(200)).unwrap_err();
        assert!(matches!(error, CheckpointError::TimedOut { .. }), "{error}");
        assert!(started.elapsed() < Duration::from_secs(10), "{:?}", started.elapsed());
    }

    #[test]
    fn git_is_never_looked_for_in_the_workspace() {
        let ws = tempfile::tempdir().unwrap();
        let outside_dir = tempfile::tempdir().unwrap();
        let tools = ws.path().join("tools");
        std::fs::create_dir(&tools).unwrap();
        let link = outside_dir.path().join("link");
        std::os::unix::fs::symlink(&tools, &link).unwrap();
        let listed = [
            PathBuf::from("."),
            PathBuf::from("bin"),
            tools.clone(),
            link,
            ws.path().join("tools/../tools"),
            outside_dir.path().to_owned(),
            PathBuf::from("/nonexistent/folder"),
        ];
        let path = std::env::join_paths(&listed).unwrap();
        let folders = trusted_folders(&path, &std::fs::canonicalize(ws.path()).unwrap());
        assert_eq!(folders, [std::fs::canonicalize(outside_dir.path()).unwrap()]);
    }

    #[test]
    fn a_missing_program_is_git_missing() {
        let command = Command::new("/nonexistent/git");
        let deadline = Deadline::after(Duration::from_secs(1));
        let error = run_bounded(command, "git", b"", deadline, &mut |_| {}).unwrap_err();
        assert!(matches!(error, CheckpointError::GitMissing), "{error}");
    }
}
