//! Confinement with bubblewrap: the argument list that wraps each run, found to work (or not)
//! once at start, and described in plain words wherever a model or a person looks.

use crate::cli::{ConfinementChoice, Options};
use crate::error::SandboxError;
use crate::limits::Limits;
use crate::prepared::Launcher;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;

/// Whether runs are confined, and if not, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confinement {
    Bubblewrap { bwrap: PathBuf },
    Unconfined { reason: String },
}

/// Everything about how a run is wrapped: confinement, network, home, limits.
#[derive(Debug)]
pub struct Jail {
    pub confinement: Confinement,
    pub network: bool,
    pub workspace: PathBuf,
    /// The user's home, replaced by an empty tmpfs inside the sandbox.
    pub home: Option<PathBuf>,
    pub limits: Arc<Limits>,
    /// Starts runs from a helper made ready in their cgroups ahead of time.
    pub launcher: Launcher,
}

impl Jail {
    /// Decides the confinement for `options` (workspace already canonical), probing bubblewrap.
    pub fn detect(options: &Options, workspace: PathBuf) -> Result<Jail, SandboxError> {
        let home = std::env::var_os("HOME").map(PathBuf::from).filter(|h| hideable_home(h));
        let confinement = match options.confinement {
            ConfinementChoice::None => {
                Confinement::Unconfined { reason: "started with --confinement none".into() }
            }
            choice => match probe_bubblewrap(options.network) {
                Ok(bwrap) => Confinement::Bubblewrap { bwrap },
                Err(reason) if choice == ConfinementChoice::Auto => {
                    Confinement::Unconfined { reason }
                }
                Err(reason) => return Err(SandboxError::ConfinementUnavailable(reason)),
            },
        };
        let limits = Arc::new(Limits::detect(options.max_processes, options.memory_mib));
        // This binary is the helper; a library caller (tests) without it runs directly.
        let helper = std::env::current_exe()
            .ok()
            .filter(|exe| exe.file_name().is_some_and(|name| name == "preflight-sandbox"));
        let launcher = Launcher::new(helper);
        Ok(Jail { confinement, network: options.network, workspace, home, limits, launcher })
    }

    pub fn is_confined(&self) -> bool {
        matches!(self.confinement, Confinement::Bubblewrap { .. })
    }

    /// The full argument list for running `argv` in `cwd`: limits wrapper, bubblewrap, command.
    pub fn wrap(&self, cwd: &Path, argv: &[String]) -> Vec<String> {
        let mut words = self.limits.wrapper();
        if let Confinement::Bubblewrap { bwrap } = &self.confinement {
            words.push(bwrap.display().to_string());
            words.extend(bubblewrap_args(self, cwd));
            words.push("--".into());
        }
        words.extend(argv.iter().cloned());
        words
    }

    /// The confinement in plain words: what a command can and cannot touch.
    pub fn describe(&self) -> String {
        let network = match (self.network, self.is_confined()) {
            (true, _) => "the network is on",
            (false, true) => "the network is off",
            (false, false) => "the network was asked to be off but cannot be switched off without bubblewrap: it is on",
        };
        let limits = self.limits.describe();
        match &self.confinement {
            Confinement::Bubblewrap { .. } => format!(
                "Confined by bubblewrap: the system is read-only, only the workspace {} is writable, \
                 /tmp is private, the home folder is empty, processes outside the sandbox are invisible \
                 and nothing a command starts outlives the call; {network}; {limits}.",
                self.workspace.display()
            ),
            Confinement::Unconfined { reason } => format!(
                "UNCONFINED ({reason}): commands run as this user with full access to the files, \
                 the home folder and the processes of this machine; {network}; {limits}. \
                 Install Debian's `bubblewrap` to confine them."
            ),
        }
    }

    /// The first line of every result when unconfined: never a silent downgrade.
    pub fn result_banner(&self) -> Option<String> {
        match &self.confinement {
            Confinement::Bubblewrap { .. } => None,
            Confinement::Unconfined { reason } => {
                Some(format!("UNCONFINED ({reason}): this ran with full access to the machine"))
            }
        }
    }
}

/// bubblewrap's options: read-only root, fresh /dev and /proc, private /tmp, empty home,
/// then the workspace bound read-write (after the tmpfs mounts that would hide it).
fn bubblewrap_args(jail: &Jail, cwd: &Path) -> Vec<String> {
    let workspace = jail.workspace.display().to_string();
    let mut args: Vec<String> =
        ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]
            .map(String::from)
            .to_vec();
    if let Some(home) = &jail.home {
        args.extend(["--tmpfs".into(), home.display().to_string()]);
    }
    args.extend(["--bind".into(), workspace.clone(), workspace]);
    args.extend(["--unshare-pid", "--die-with-parent", "--new-session"].map(String::from));
    if !jail.network {
        args.push("--unshare-net".into());
    }
    args.extend(["--chdir".into(), cwd.display().to_string()]);
    args
}

/// A home worth hiding: absolute, existing, not the root and not /tmp (already private).
fn hideable_home(home: &Path) -> bool {
    home.is_absolute() && home.is_dir() && home != Path::new("/") && home != Path::new("/tmp")
}

/// Finds `bwrap` and checks it can build the namespaces we use; the error says why not.
fn probe_bubblewrap(network: bool) -> Result<PathBuf, String> {
    let bwrap = find_on_path("bwrap").ok_or("bubblewrap (bwrap) is not installed")?;
    let mut probe = Command::new(&bwrap);
    probe.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid"]);
    probe.args(["--die-with-parent", "--new-session"]);
    if !network {
        probe.arg("--unshare-net");
    }
    probe.args(["--", "/bin/true"]).stdin(Stdio::null()).stdout(Stdio::null());
    match probe.output() {
        Ok(out) if out.status.success() => Ok(bwrap),
        Ok(out) => Err(format!(
            "bubblewrap is installed but cannot confine here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        Err(e) => Err(format!("bubblewrap is installed but would not start: {e}")),
    }
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
