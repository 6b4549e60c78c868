//! The workspace's Python: `{workspace}/.sandbox/venv`, created on first need with the
//! interpreter we mean (Debian's `/usr/bin/python3`, not whatever `python3` PATH finds first),
//! reused afterwards, never deleted.

use crate::error::SandboxError;
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::process::Command;

const DEBIAN_PYTHON: &str = "/usr/bin/python3";
const CREATE_TIMEOUT: Duration = Duration::from_secs(300);

/// The interpreter that creates the venv, and how it was chosen.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Python {
    pub interpreter: PathBuf,
    pub chosen_because: &'static str,
}

impl Python {
    /// `--python` if given, else Debian's `/usr/bin/python3`, else the first `python3` on PATH.
    pub fn resolve(explicit: Option<PathBuf>) -> Python {
        if let Some(interpreter) = explicit {
            return Python { interpreter, chosen_because: "given with --python" };
        }
        if Path::new(DEBIAN_PYTHON).is_file() {
            return Python {
                interpreter: DEBIAN_PYTHON.into(),
                chosen_because: "Debian's system Python",
            };
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        let found = std::env::split_paths(&path).map(|d| d.join("python3")).find(|p| p.is_file());
        match found {
            Some(interpreter) => {
                Python { interpreter, chosen_because: "the first python3 on PATH" }
            }
            None => Python {
                interpreter: DEBIAN_PYTHON.into(),
                chosen_because: "the default (not found)",
            },
        }
    }

    /// The interpreter's version (`3.11.2`), if it runs.
    pub async fn version(&self) -> Option<String> {
        let out = isolated(&self.interpreter)
            .args(["-c", "import sys; print(sys.version.split()[0])"])
            .output();
        let out = tokio::time::timeout(Duration::from_secs(20), out).await.ok()?.ok()?;
        out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
    }
}

/// `{workspace}/.sandbox/venv`.
pub fn venv_dir(workspace: &Path) -> PathBuf {
    workspace.join(".sandbox").join("venv")
}

/// `{workspace}/.sandbox` when it is a real folder (not a link): what a jailed command sees
/// read-only, so only pip's own runs change the venv.
pub fn state_folder(workspace: &Path) -> Option<PathBuf> {
    let folder = workspace.join(".sandbox");
    let real = std::fs::symlink_metadata(&folder).is_ok_and(|m| m.is_dir());
    real.then_some(folder)
}

/// Makes `folder` unless it is there, never through a link: a `.sandbox` (or `.sandbox/venv`)
/// that is a link or a file is refused, so nothing the server does lands outside the
/// workspace. `mkdir` on a link fails rather than follow it.
fn real_folder(folder: &Path, create: bool) -> Result<bool, SandboxError> {
    match std::fs::symlink_metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(true),
        Ok(_) => Err(SandboxError::StateFolderRefused(folder.to_path_buf())),
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
            Err(SandboxError::io(format!("looking at {}", folder.display()), e))
        }
        Err(_) if !create => Ok(false),
        Err(_) => match std::fs::create_dir(folder) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => real_folder(folder, false),
            Err(e) => Err(SandboxError::io(format!("creating {}", folder.display()), e)),
        },
    }
}

/// The venv's interpreter.
pub fn venv_python(venv: &Path) -> PathBuf {
    venv.join("bin").join("python")
}

/// The venvs this sandbox made, recorded outside every workspace (`--state-dir`): a venv a
/// repository brings along (`.sandbox/venv` committed, or copied in) is not one of them, and
/// its programs are never run or put on PATH. A record names the venv folder's and its
/// `pyvenv.cfg`'s device and inode, which a clone or a copy cannot reproduce.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Records {
    pub dir: PathBuf,
}

impl Records {
    /// `--state-dir`, else `$XDG_STATE_HOME/preflight/sandbox` (`~/.local/state/…`).
    pub fn resolve(explicit: Option<PathBuf>) -> Records {
        let state = || {
            let xdg = std::env::var_os("XDG_STATE_HOME").map(PathBuf::from);
            let home = std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/state"));
            xdg.filter(|p| p.is_absolute()).or(home).unwrap_or_else(std::env::temp_dir)
        };
        Records { dir: explicit.unwrap_or_else(|| state().join("preflight/sandbox")) }
    }

    fn file_of(&self, venv: &Path) -> PathBuf {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(venv.as_os_str().as_encoded_bytes());
        let name: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
        self.dir.join("venvs").join(name)
    }

    /// Whether `venv` is the one this sandbox made.
    pub fn is_ours(&self, venv: &Path) -> bool {
        let recorded = std::fs::read_to_string(self.file_of(venv)).unwrap_or_default();
        identity(venv).is_some_and(|now| recorded.lines().next() == Some(now.as_str()))
    }

    /// Records `venv` as made by this sandbox: after it is created, or adopted at the user's
    /// word (`adopt.rs`).
    pub(crate) fn record(&self, venv: &Path) -> Result<(), SandboxError> {
        let file = self.file_of(venv);
        let failed =
            |e| SandboxError::io(format!("recording the new venv in {}", file.display()), e);
        let now = identity(venv)
            .ok_or_else(|| failed(std::io::Error::other("the new venv has no pyvenv.cfg")))?;
        std::fs::create_dir_all(file.parent().unwrap_or(&self.dir)).map_err(failed)?;
        let temporary = file.with_extension("new");
        std::fs::write(&temporary, format!("{now}\n{}\n", venv.display())).map_err(failed)?;
        std::fs::rename(&temporary, &file).map_err(failed)
    }
}

/// `dev:ino dev:ino` of the venv folder and its `pyvenv.cfg` (links not followed).
pub(crate) fn identity(venv: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let folder = std::fs::symlink_metadata(venv).ok().filter(|m| m.is_dir())?;
    let config = std::fs::symlink_metadata(venv.join("pyvenv.cfg")).ok().filter(|m| m.is_file())?;
    Some(format!("{}:{} {}:{}", folder.dev(), folder.ino(), config.dev(), config.ino()))
}

/// Creates the venv unless it exists; an existing folder without `bin/python` is refused, not
/// replaced, and so is one this sandbox did not make. A missing interpreter or venv module
/// names what to install.
pub async fn ensure(python: &Python, venv: &Path, records: &Records) -> Result<(), SandboxError> {
    // `.sandbox` first, made here when missing (so it exists, read-only, in every later run).
    real_folder(venv.parent().unwrap_or(venv), true)?;
    let exists = real_folder(venv, false)?;
    if exists && std::fs::symlink_metadata(venv_python(venv)).is_ok() {
        return match records.is_ours(venv) {
            true => Ok(()),
            false => Err(SandboxError::VenvForeign(venv.to_path_buf())),
        };
    }
    if exists {
        return Err(SandboxError::VenvBroken(venv.to_path_buf()));
    }
    check_venv_module(python).await?;
    let create = isolated(&python.interpreter).args(["-m", "venv"]).arg(venv).output();
    let failed = |detail: String| SandboxError::VenvCreate { dir: venv.to_path_buf(), detail };
    let out = match tokio::time::timeout(CREATE_TIMEOUT, create).await {
        Err(_) => {
            return Err(failed(format!("still running after {} s", CREATE_TIMEOUT.as_secs())))
        }
        Ok(Err(e)) => return Err(failed(e.to_string())),
        Ok(Ok(out)) => out,
    };
    if !out.status.success() {
        return Err(failed(String::from_utf8_lossy(&out.stderr).trim().to_string()));
    }
    records.record(venv)
}

async fn check_venv_module(python: &Python) -> Result<(), SandboxError> {
    let shown = python.interpreter.display();
    if !python.interpreter.is_file() {
        return Err(SandboxError::PythonMissing(format!(
            "no Python interpreter at {shown}: install Debian's python3 and python3-venv (apt-get install python3 python3-venv)"
        )));
    }
    let check = isolated(&python.interpreter).args(["-c", "import venv, ensurepip"]).output().await;
    match check {
        Ok(out) if out.status.success() => Ok(()),
        _ => Err(SandboxError::PythonMissing(format!(
            "{shown} cannot create virtual environments (no venv/ensurepip module): install python3-venv (apt-get install python3-venv)"
        ))),
    }
}

/// The trusted interpreter, isolated (`-I`: no PYTHON* variables, no user site, no current
/// folder on sys.path) and started from `/` so nothing in the workspace is imported.
pub(crate) fn isolated(interpreter: &Path) -> Command {
    let mut command = Command::new(interpreter);
    command.arg("-I").current_dir("/").env_clear();
    command.env("PATH", "/usr/local/bin:/usr/bin:/bin").stdin(std::process::Stdio::null());
    command.kill_on_drop(true);
    command
}
