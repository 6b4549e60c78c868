//! pip's network: a network namespace of its own given outbound-only user-mode networking by
//! `pasta` (Debian's `passt`). An install reaches an index on the LAN or the internet, never
//! the host's loopback (a `127.0.0.1` listener) nor its abstract unix sockets: those live in
//! the host's network namespace, which pip's run is not in, and pasta is told to forward no
//! port and not to map the gateway's address to the host (`--no-map-gw`).
//!
//! Without a working pasta an install is refused with what to install: pip is never run on
//! the host's network instead (a package's build code, a `.pth` file of an earlier install,
//! would reach every local service and carry `PIP_*` credentials there).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a probe of pasta may take before it counts as not working.
const PROBE_TIMEOUT: Duration = Duration::from_secs(20);

/// What to install when pasta is missing or broken.
pub const INSTALL_HINT: &str = "install Debian's `passt` package (apt-get install passt), which \
     gives pip an outbound-only network without the host's loopback";

/// pasta, found at start and probed on the first install (again on the next while it fails,
/// so installing passt helps without a restart).
#[derive(Debug)]
pub struct Outbound {
    pasta: Option<PathBuf>,
    working: OnceLock<Vec<String>>,
}

impl Outbound {
    /// Looks for `pasta` on `PATH` (then `/usr/bin`); nothing runs yet.
    pub fn find(find: impl Fn(&str) -> Option<PathBuf>) -> Outbound {
        Outbound { pasta: find("pasta"), working: OnceLock::new() }
    }

    /// Whether pasta is installed (whether it works is known after [`Outbound::words`]).
    pub fn installed(&self) -> bool {
        self.pasta.is_some()
    }

    /// The words that start a command under pasta, once pasta was seen to work here; else why
    /// not, with what to install. Probed until it works (a probe takes some 300 ms).
    pub fn words(&self) -> Result<Vec<String>, String> {
        if let Some(words) = self.working.get() {
            return Ok(words.clone());
        }
        let words = probe(self.pasta.as_deref())?;
        Ok(self.working.get_or_init(|| words).clone())
    }
}

/// `pasta … --`: a network namespace configured like the host's (its addresses, routes,
/// resolver) whose traffic pasta relays from the host as ordinary outbound connections.
fn pasta_words(pasta: &Path) -> Vec<String> {
    let mut words = vec![pasta.display().to_string()];
    // SAFETY: geteuid(2) has no preconditions.
    if unsafe { libc::geteuid() } == 0 {
        // As root pasta would switch to `nobody` and put the command in a user namespace
        // without a mapping: stay root and make only the network namespace.
        words.extend(["--runas", "0", "--netns-only"].map(String::from));
    }
    // No port forwarded either way (`-t/-u` host to namespace, `-T/-U` namespace to host's
    // loopback), the gateway not mapped to the host, quiet, in the foreground.
    let options = ["--config-net", "--no-map-gw", "-t", "none", "-u", "none", "-T", "none"];
    words.extend(options.map(String::from));
    words.extend(["-U", "none", "-q", "-f", "--"].map(String::from));
    words
}

/// Runs `/bin/true` under pasta once; its words on success, else the reason.
fn probe(pasta: Option<&Path>) -> Result<Vec<String>, String> {
    let pasta = pasta.ok_or_else(|| format!("pasta is not installed: {INSTALL_HINT}"))?;
    let words = pasta_words(pasta);
    let mut command = Command::new(&words[0]);
    command.args(&words[1..]).arg("/bin/true").current_dir("/");
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::piped());
    let broken = |detail: String| {
        format!("pasta cannot make pip's network here ({detail}): {INSTALL_HINT}, or a newer one")
    };
    let mut child = command.spawn().map_err(|e| broken(format!("it would not start: {e}")))?;
    let deadline = Instant::now() + PROBE_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(broken("it did not finish".into()));
            }
        }
    };
    let mut stderr = String::new();
    if let Some(mut pipe) = child.stderr.take() {
        let _ = pipe.read_to_string(&mut stderr);
    }
    match status.success() {
        true => Ok(words),
        false => Err(broken(without_noise(&stderr).trim().to_string())),
    }
}

/// pasta's own complaints that do not matter (as root it still tries a user mapping, and
/// it logs to a syslog that may not be there), taken out of a run's stderr.
pub fn without_noise(stderr: &str) -> String {
    let noise = |line: &str| {
        line.starts_with("Couldn't write to /proc/self/uid_map")
            || line == "Couldn't configure user mappings"
            || (line.starts_with("Failed to send ") && line.ends_with(" bytes to syslog"))
    };
    let kept: Vec<&str> = stderr.split_inclusive('\n').filter(|l| !noise(l.trim_end())).collect();
    kept.concat()
}

/// The resolver file to show pip's run at the path `/etc/resolv.conf` leads to, when the
/// host's names a loopback resolver (systemd-resolved's stub at 127.0.0.53), which is the
/// host's loopback and so out of reach: systemd-resolved's list of the real upstream
/// servers. `(source, destination)`.
pub fn upstream_resolver() -> Option<(PathBuf, PathBuf)> {
    upstream_of(Path::new("/etc/resolv.conf"), Path::new("/run/systemd/resolve/resolv.conf"))
}

fn upstream_of(resolv_conf: &Path, upstream: &Path) -> Option<(PathBuf, PathBuf)> {
    let resolver = resolv_conf.canonicalize().ok()?;
    let text = std::fs::read_to_string(&resolver).ok()?;
    let loopback = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("nameserver"))
        .any(|ns| ns.trim().parse::<std::net::IpAddr>().is_ok_and(|address| address.is_loopback()));
    let upstream = upstream.canonicalize().ok()?;
    (loopback && upstream.is_file() && upstream != resolver).then_some((upstream, resolver))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pastas_complaints_are_taken_out_and_the_rest_kept() {
        let stderr = "Failed to send 68 bytes to syslog\nCouldn't write to /proc/self/uid_map: Operation not permitted\n\
                      Couldn't configure user mappings\nERROR: No matching distribution found for x\n";
        assert_eq!(without_noise(stderr), "ERROR: No matching distribution found for x\n");
    }

    #[test]
    fn a_loopback_resolver_is_replaced_by_the_upstream_list() {
        let dir = tempfile::tempdir().unwrap();
        let (stub, upstream) = (dir.path().join("stub"), dir.path().join("upstream"));
        std::fs::write(&upstream, "nameserver 192.0.2.53\n").unwrap();
        std::fs::write(&stub, "# resolved\nnameserver 127.0.0.53\noptions edns0\n").unwrap();
        std::os::unix::fs::symlink(&stub, dir.path().join("resolv.conf")).unwrap();
        let swapped = upstream_of(&dir.path().join("resolv.conf"), &upstream).unwrap();
        assert_eq!(swapped, (upstream.canonicalize().unwrap(), stub.canonicalize().unwrap()));
        std::fs::write(&stub, "nameserver 10.0.0.1\n").unwrap();
        assert_eq!(upstream_of(&stub, &upstream), None, "a resolver pip reaches is kept");
        std::fs::write(&stub, "nameserver ::1\n").unwrap();
        assert_eq!(upstream_of(&stub, &dir.path().join("missing")), None);
    }

    #[test]
    fn a_missing_pasta_names_what_to_install() {
        let outbound = Outbound::find(|_| None);
        assert!(!outbound.installed());
        let refused = outbound.words().unwrap_err();
        assert!(refused.contains("apt-get install passt"), "{refused}");
    }
}
