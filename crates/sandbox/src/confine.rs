//! Confinement with bubblewrap: the argument list that wraps each run, found to work (or not)
//! once at start, and described in plain words wherever a model or a person looks.
//!
//! The order of the mounts is the design: the system folders, the empty home, the workspace
//! read-write, then what must stay read-only in it (every `.git` and the `.dwp` plan folder,
//! `watch.rs`) bound again on top, and last the empty home once more when it lies inside the
//! workspace (so a workspace of `/home` does not show the real `~/.ssh`).

use crate::cli::{ConfinementChoice, Options};
use crate::error::SandboxError;
use crate::limits::Limits;
use crate::outbound::{self, Outbound};
use crate::prepared::Launcher;
use crate::request::{Network, Reach};
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
/// `network` is whether commands and Python get the host's network (`--network`); pip's
/// installs get an outbound-only one through pasta (`outbound`, see [`Network`]).
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
    /// pasta, which gives pip's runs their outbound-only network.
    pub outbound: Outbound,
}

impl Jail {
    /// Decides the confinement for `options` (workspace already canonical), probing bubblewrap.
    pub fn detect(options: &Options, workspace: PathBuf) -> Result<Jail, SandboxError> {
        // Canonical, so the empty tmpfs does not also make the folders of a `..` path inside.
        let home = std::env::var_os("HOME")
            .and_then(|home| PathBuf::from(home).canonicalize().ok())
            .filter(|home| hideable_home(home));
        let confinement = match options.confinement {
            ConfinementChoice::None => {
                Confinement::Unconfined { reason: "started with --confinement none".into() }
            }
            choice => match probe_bubblewrap() {
                Ok(bwrap) => Confinement::Bubblewrap { bwrap },
                Err(reason) if choice == ConfinementChoice::Auto => {
                    Confinement::Unconfined { reason }
                }
                Err(reason) => return Err(SandboxError::ConfinementUnavailable(reason)),
            },
        };
        let limits = Arc::new(Limits::detect(
            options.max_processes,
            options.memory_mib,
            options.max_file_mib,
        ));
        // This binary is the helper; a library caller (tests) without it runs directly.
        let helper = std::env::current_exe()
            .ok()
            .filter(|exe| exe.file_name().is_some_and(|name| name == "preflight-sandbox"));
        let launcher = Launcher::new(helper);
        let outbound = Outbound::find(find_on_path);
        let network = options.network;
        Ok(Jail { confinement, network, workspace, home, limits, launcher, outbound })
    }

    pub fn is_confined(&self) -> bool {
        matches!(self.confinement, Confinement::Bubblewrap { .. })
    }

    /// The full argument list for running `argv` in `cwd` with `reach`: limits wrapper,
    /// pasta (pip's outbound-only network), bubblewrap, command. Refused when the outbound
    /// network is asked for and pasta does not work: never the host's network instead.
    /// `protected` is what stays read-only in the workspace, from the snapshot the run's
    /// check starts from; `None` walks the workspace here.
    pub fn wrap(
        &self,
        cwd: &Path,
        reach: &Reach,
        protected: Option<&[PathBuf]>,
        argv: &[String],
    ) -> Result<Vec<String>, SandboxError> {
        let mut words = self.limits.wrapper();
        if let Confinement::Bubblewrap { bwrap } = &self.confinement {
            if reach.network == Network::Outbound {
                words.extend(self.outbound.words().map_err(SandboxError::OutboundUnavailable)?);
            }
            let walked;
            let protected = match protected {
                Some(paths) => paths,
                None => {
                    walked = protected_in(&self.workspace);
                    &walked
                }
            };
            words.push(bwrap.display().to_string());
            words.extend(bubblewrap_args(self, cwd, reach, protected));
            words.push("--".into());
        }
        words.extend(argv.iter().cloned());
        Ok(words)
    }

    /// The confinement in plain words: what a command can and cannot touch.
    pub fn describe(&self) -> String {
        let network = match (self.network, self.is_confined()) {
            (true, _) => "the network is on",
            (false, true) => "commands and Python have no network",
            (false, false) => "the network was asked to be off but cannot be switched off without bubblewrap: it is on",
        };
        let limits = self.limits.describe();
        match &self.confinement {
            Confinement::Bubblewrap { .. } => format!(
                "Confined by bubblewrap: only the system folders (/usr, /etc) are visible, read-only; \
                 only the workspace {} is writable, but every .git in it (at any depth, folder or \
                 file) and its .dwp plan folder are read-only, and a .git or .dwp a run creates or \
                 replaces is renamed aside after it (quarantined, never deleted; the result says \
                 so); /tmp and /run are private, the home folder is empty, no socket of the host is reachable, processes outside \
                 the sandbox are invisible and nothing a command starts outlives the call; \
                 the venv's folder .sandbox is read-only to commands and Python (only \
                 install_packages changes it); {network}; {pip}; {limits}.",
                self.workspace.display(),
                pip = self.pip_network(),
            ),
            Confinement::Unconfined { reason } => format!(
                "UNCONFINED ({reason}): commands run as this user with full access to the files, \
                 the home folder and the processes of this machine; {network}; {limits}. \
                 Install Debian's `bubblewrap` to confine them."
            ),
        }
    }

    /// What pip's network (install_packages) reaches, in plain words.
    pub fn pip_network(&self) -> String {
        match (self.is_confined(), self.outbound.installed()) {
            (true, true) => "install_packages' pip has an outbound-only network of its own \
                (pasta): an index on the internet or the LAN, never this machine's loopback \
                (127.0.0.1) nor its abstract unix sockets"
                .into(),
            (true, false) => format!(
                "install_packages is refused: pasta, which gives pip an outbound-only network, \
                 is missing ({})",
                outbound::INSTALL_HINT
            ),
            (false, _) => "install_packages' pip has the host's whole network".into(),
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

/// The top-level folders programs need, bound read-only (or recreated as the links they are
/// on a merged-/usr system). Nothing else of the host is inside: no `/home`, `/root`, `/run`,
/// `/var`, `/mnt`, `/media`, `/srv` or `/opt`, so no host socket path exists in the jail.
const SYSTEM_DIRS: [&str; 8] =
    ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc"];

/// bubblewrap's options, by allowlist: the system folders read-only, fresh `/dev`, `/proc`,
/// `/tmp`, `/run` and `/var/tmp`, an empty home, the workspace read-write with `protected`
/// (its `.git` entries and `.dwp`) read-only again on top, every namespace unshared (the
/// network's too unless `reach` asks).
fn bubblewrap_args(jail: &Jail, cwd: &Path, reach: &Reach, protected: &[PathBuf]) -> Vec<String> {
    let mut args = system_view();
    // The home first: a workspace or a wheel folder inside it is bound over the empty tmpfs.
    if let Some(home) = &jail.home {
        args.extend(["--tmpfs".into(), home.display().to_string()]);
    }
    let upstream = match reach.network {
        Network::Outbound => outbound::upstream_resolver(),
        _ => None,
    };
    let mut resolver = None;
    if let Some((source, destination)) = &upstream {
        let [source, destination] = [source, destination].map(|p| p.display().to_string());
        args.extend(["--ro-bind".into(), source, destination]);
    } else if reach.network != Network::None {
        resolver = resolver_outside_etc();
    }
    let state = match reach.state_writable {
        true => None,
        false => crate::venv::state_folder(&jail.workspace),
    };
    for (how, path) in binds(jail, reach, resolver.as_deref(), protected, state.as_deref()) {
        let path = path.display().to_string();
        match how {
            "--tmpfs" => args.extend([how.to_owned(), path]),
            _ => args.extend([how.to_owned(), path.clone(), path]),
        }
    }
    args.extend(["--unshare-all", "--die-with-parent", "--new-session"].map(String::from));
    // The host's network, or pasta's namespace the run was started in.
    if reach.network != Network::None {
        args.push("--share-net".into());
    }
    args.extend(["--chdir".into(), cwd.display().to_string()]);
    args
}

/// The mounts over the system view, in order: resolver and wheel folders, the workspace,
/// what is read-only in it (`protected`, then `state`: the venv's `.sandbox` when the run is
/// not pip's), and the home emptied again when it lies inside the workspace.
fn binds<'a>(
    jail: &'a Jail,
    reach: &'a Reach,
    resolver: Option<&'a Path>,
    protected: &'a [PathBuf],
    state: Option<&'a Path>,
) -> Vec<(&'static str, &'a Path)> {
    let mut binds: Vec<(&str, &Path)> = Vec::new();
    binds.extend(resolver.map(|file| ("--ro-bind", file)));
    binds.extend(reach.read_only.iter().map(|folder| ("--ro-bind-try", folder.as_path())));
    binds.push(("--bind", jail.workspace.as_path()));
    binds.extend(protected.iter().map(|path| ("--ro-bind", path.as_path())));
    // The venv's folder, read-only but to pip's own runs.
    binds.extend(state.map(|folder| ("--ro-bind", folder)));
    // A home inside the workspace (a workspace of `/home`) would be the real one again under
    // the workspace's bind: it is emptied once more on top, and the wheel folders in it bound
    // again after that.
    if let Some(home) = jail.home.as_deref().filter(|home| home_inside(home, &jail.workspace)) {
        binds.push(("--tmpfs", home));
        let wheels = reach.read_only.iter().filter(|folder| folder.starts_with(home));
        binds.extend(wheels.map(|folder| ("--ro-bind-try", folder.as_path())));
    }
    binds
}

/// Whether `home` lies inside `workspace` and is not the workspace itself (a workspace that
/// is the home keeps it visible: it is what the user asked to work in).
fn home_inside(home: &Path, workspace: &Path) -> bool {
    home.starts_with(workspace) && home != workspace
}

/// The fixed part of the view: system folders, then the private scratch folders.
fn system_view() -> Vec<String> {
    let mut args = Vec::new();
    for dir in SYSTEM_DIRS {
        let path = Path::new(dir);
        match std::fs::read_link(path) {
            // `/bin -> usr/bin` and the like: the same link inside, pointing into our /usr.
            Ok(target) => {
                args.extend(["--symlink".into(), target.display().to_string(), dir.into()])
            }
            Err(_) if path.is_dir() => args.extend(["--ro-bind".into(), dir.into(), dir.into()]),
            Err(_) => {}
        }
    }
    for scratch in ["/tmp", "/run", "/var/tmp"] {
        args.extend(["--tmpfs".into(), scratch.into()]);
    }
    args.extend(["--dev", "/dev", "--proc", "/proc"].map(String::from));
    args
}

/// `/etc/resolv.conf` when it links out of `/etc` (systemd-resolved's file under `/run`):
/// the one file bound, not its folder (which holds resolved's socket), so names resolve.
fn resolver_outside_etc() -> Option<PathBuf> {
    let resolved = Path::new("/etc/resolv.conf").canonicalize().ok()?;
    (!resolved.starts_with("/etc") && resolved.is_file()).then_some(resolved)
}

/// What stays read-only inside the writable workspace, found by a bounded walk
/// (`watch.rs`): every `.git` at any depth, folder or file, in any case (a hook or a
/// `core.fsmonitor` planted there would run unconfined at the user's next `git status`), the
/// folders `.git` files point at, and the `.dwp` plan folder. A bind's mount point cannot be
/// renamed, removed or replaced from inside either. A link is bound at its target only when
/// that is inside the workspace.
pub fn protected_in(workspace: &Path) -> Vec<PathBuf> {
    crate::watch::snapshot(workspace).protected(workspace)
}

/// A home worth hiding: absolute, existing, not the root and not /tmp (already private).
fn hideable_home(home: &Path) -> bool {
    home.is_absolute() && home.is_dir() && home != Path::new("/") && home != Path::new("/tmp")
}

/// `--probe`'s answer, one JSON line: whether runs would be confined here, and if not, why.
/// The engine asks before approval, so that running unconfined is the user's choice.
pub fn probe_report() -> String {
    let report = match probe_bubblewrap() {
        Ok(_) => serde_json::json!({ "confined": true }),
        Err(reason) => serde_json::json!({ "confined": false, "reason": reason }),
    };
    report.to_string()
}

/// Finds `bwrap` and checks it can build the namespaces we use; the error says why not.
fn probe_bubblewrap() -> Result<PathBuf, String> {
    let bwrap = find_on_path("bwrap").ok_or("bubblewrap (bwrap) is not installed")?;
    let mut probe = Command::new(&bwrap);
    probe.args(system_view()).args(["--unshare-all", "--die-with-parent", "--new-session"]);
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
