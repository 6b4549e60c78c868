//! The crate's errors: what the command line and the tools refuse, and why, in plain words.

use std::io;
use std::path::PathBuf;

/// Everything that can go wrong before or around a run. A command that runs and fails is not
/// an error: it is a [`crate::run::RunOutcome`] with a non-zero exit code.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// A command line refused: the problem, then the usage text it is shown with.
    #[error("{problem}\n\n{usage}")]
    Usage { problem: String, usage: &'static str },
    #[error("the workspace {path} is not a usable folder: {source}")]
    Workspace { path: PathBuf, source: io::Error },
    #[error("cwd {cwd:?} refused: {reason}")]
    CwdRefused { cwd: String, reason: &'static str },
    /// A `timeout_s` outside 1..=`max`.
    #[error("timeout_s {seconds} refused: it must be between 1 and {max} seconds")]
    TimeoutRefused { seconds: u64, max: u64 },
    #[error("invalid arguments: {0}")]
    Arguments(String),
    #[error("package {spec:?} refused: {why}. install_packages accepts requirements by name from the package index: a name, optional [extras] and version specifiers, such as `six`, `numpy>=1.26,<2` or `requests[socks]==2.31.0`; never a file, an archive, a path, a URL or a pip option")]
    PackageRefused { spec: String, why: &'static str },
    /// pip's outbound-only network cannot be made: the reason and what to install.
    #[error("install_packages refused: {0}. pip is never run on the host's own network instead")]
    OutboundUnavailable(String),
    /// `.sandbox` or `.sandbox/venv` is a link or not a folder: nothing is made through it.
    #[error("{0} is a symbolic link or not a real folder inside the workspace; the sandbox keeps its venv there and writes nothing through it: remove it (it may have come with the repository), and the next run creates a fresh one")]
    StateFolderRefused(PathBuf),
    #[error("{0}")]
    PythonMissing(String),
    #[error("{0} exists but holds no bin/python; Preflight never deletes it: move it away or delete it yourself, and the next run creates a fresh one")]
    VenvBroken(PathBuf),
    #[error("{0} was not made by Preflight's sandbox (it came with the workspace, or was replaced): its programs would run with the user's rights, so it is not used. Move it away or delete it yourself, and the next run creates a fresh one")]
    VenvForeign(PathBuf),
    /// Not recorded, but made the way an earlier Preflight made venvs (`adopt.rs`): it is used
    /// once the user adopts it in the window, never before.
    #[error("{0} was not recorded by this sandbox, but it looks like a venv an earlier Preflight made (before venvs were recorded). It is not used until the user confirms it: in Preflight's window, \"Use this environment\" adopts it (or POST /v1/chats/{{id}}/sandbox/venv/adopt with {{\"confirm\": true}}). Or move it away or delete it, and the next run creates a fresh one. Ask the user; do not try to work around it")]
    VenvAdoptable(PathBuf),
    /// Adoption refused: the venv is not what an earlier Preflight made; nothing changed.
    #[error("{venv} cannot be adopted: {reason}. It is not used; move it away or delete it yourself, and the next run creates a fresh one")]
    VenvNotAdoptable { venv: PathBuf, reason: String },
    #[error("could not create the virtual environment {dir}: {detail}")]
    VenvCreate { dir: PathBuf, detail: String },
    #[error("--confinement bubblewrap was asked for, but {0}")]
    ConfinementUnavailable(String),
    #[error("could not start {program}: {source}")]
    Spawn { program: String, source: io::Error },
    #[error("{context}: {source}")]
    Io { context: String, source: io::Error },
}

impl SandboxError {
    /// An I/O error with what was being done when it happened.
    pub fn io(context: impl Into<String>, source: io::Error) -> Self {
        SandboxError::Io { context: context.into(), source }
    }
}
