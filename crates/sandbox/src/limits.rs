//! Process and memory limits for a run: a child cgroup per run (v1 `pids` and `memory`
//! controllers, or the v2 unified hierarchy), or a `systemd-run --user --scope` wrapper, and
//! how a run's process joins its cgroups before it execs (direct runs and helpers alike).
//!
//! As root, `RLIMIT_NPROC` does not bind (STACK-NOTES), so limits come from cgroups only.
//! What was found is described in plain words and shown to the model.

use crate::error::SandboxError;
use std::fs::{self, File, OpenOptions};
use std::os::fd::{AsRawFd, RawFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

const CGROUP_ROOT: &str = "/sys/fs/cgroup";

/// How limits are applied on this machine.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LimitMechanism {
    /// cgroup v1: a child of this process's cgroup in each writable controller found.
    CgroupV1 { pids: Option<PathBuf>, memory: Option<PathBuf> },
    /// cgroup v2: a child of this process's cgroup with `pids.max` and `memory.max`.
    CgroupV2 { parent: PathBuf },
    /// `systemd-run --user --scope -p TasksMax=… -p MemoryMax=…` around each run.
    SystemdScope,
    /// Nothing binds; the reason is shown.
    None { reason: String },
}

/// The limits every run gets, and how they are enforced.
#[derive(Debug)]
pub struct Limits {
    pub mechanism: LimitMechanism,
    pub max_processes: u32,
    pub memory_bytes: u64,
    /// The largest file a run may write (`RLIMIT_FSIZE`, set on every run whatever the
    /// mechanism): the cap on what one command puts on the disk in one file.
    pub file_bytes: u64,
    next_run: AtomicU64,
    /// The start of this process's runs' cgroup names: its pid and its start time, so that a
    /// group a dead sandbox with the same pid left behind is never taken for one of ours.
    run_prefix: String,
}

impl Limits {
    /// Finds the first mechanism that works here: cgroup v1, cgroup v2, a systemd user scope.
    pub fn detect(max_processes: u32, memory_mib: u64, file_mib: u64) -> Limits {
        let own = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
        let pids = v1_dir(&own, "pids");
        let memory = v1_dir(&own, "memory");
        let mechanism = if pids.is_some() || memory.is_some() {
            LimitMechanism::CgroupV1 { pids, memory }
        } else if let Some(parent) = v2_dir(&own) {
            LimitMechanism::CgroupV2 { parent }
        } else if systemd_scope_works() {
            LimitMechanism::SystemdScope
        } else {
            let reason = "no writable cgroup (v1 pids/memory or v2) and no systemd user scope here";
            LimitMechanism::None { reason: reason.into() }
        };
        let memory_bytes = memory_mib.saturating_mul(1024 * 1024);
        let file_bytes = file_mib.saturating_mul(1024 * 1024);
        let started = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        let run_prefix = format!("preflight-sandbox-{}-{started:x}", std::process::id());
        let next_run = AtomicU64::new(0);
        Limits { mechanism, max_processes, memory_bytes, file_bytes, next_run, run_prefix }
    }

    /// The note for a run that hit the file cap: killed by `SIGXFSZ` (exit 153), or told
    /// "File too large" (`EFBIG`, which Python and programs ignoring the signal get).
    pub fn file_cap_note(&self, exit_code: i32, stderr: &str) -> Option<String> {
        let hit = exit_code == 128 + libc::SIGXFSZ
            || stderr.contains("File too large")
            || stderr.contains("File size limit exceeded");
        hit.then(|| {
            format!(
                "the file size cap was reached: no file may grow past {} MiB in the sandbox \
                 ([sandbox] max_file_mib)",
                self.file_bytes / (1024 * 1024)
            )
        })
    }

    /// Which limits hold, in plain words.
    pub fn describe(&self) -> String {
        let files = format!("files of at most {} MiB", self.file_bytes / (1024 * 1024));
        format!("{}, {files}", self.describe_cgroups())
    }

    fn describe_cgroups(&self) -> String {
        let (procs, mib) = (self.max_processes, self.memory_bytes / (1024 * 1024));
        match &self.mechanism {
            LimitMechanism::CgroupV1 { pids, memory } => {
                let mut held = Vec::new();
                let mut missing = Vec::new();
                match pids {
                    Some(_) => held.push(format!("at most {procs} processes")),
                    None => missing.push("processes"),
                }
                match memory {
                    Some(_) => held.push(format!("at most {mib} MiB of memory")),
                    None => missing.push("memory"),
                }
                let mut words = format!("{} (cgroup v1)", held.join(" and "));
                if !missing.is_empty() {
                    words.push_str(&format!("; no limit on {}", missing.join(" or ")));
                }
                words
            }
            LimitMechanism::CgroupV2 { .. } => {
                format!("at most {procs} processes and {mib} MiB of memory (cgroup v2)")
            }
            LimitMechanism::SystemdScope => {
                format!("at most {procs} processes and {mib} MiB of memory (systemd user scope)")
            }
            LimitMechanism::None { reason } => format!("no process or memory limit ({reason})"),
        }
    }

    /// The words to put before the command (a systemd scope), if any.
    pub fn wrapper(&self) -> Vec<String> {
        match self.mechanism {
            LimitMechanism::SystemdScope => vec![
                "systemd-run".into(),
                "--user".into(),
                "--scope".into(),
                "--quiet".into(),
                format!("--property=TasksMax={}", self.max_processes),
                format!("--property=MemoryMax={}", self.memory_bytes),
                "--".into(),
            ],
            _ => Vec::new(),
        }
    }

    /// Creates this run's cgroups with their limits written (none for the other mechanisms).
    pub fn create_run(&self) -> Result<RunCgroups, SandboxError> {
        let n = self.next_run.fetch_add(1, Ordering::Relaxed);
        let name = format!("{}-{n}", self.run_prefix);
        let mut run = RunCgroups { groups: Vec::new() };
        match &self.mechanism {
            LimitMechanism::CgroupV1 { pids, memory } => {
                if let Some(parent) = pids {
                    let max = self.max_processes.to_string();
                    run.groups.push(Group::create(parent.join(&name), &[("pids.max", &max)])?);
                }
                if let Some(parent) = memory {
                    let bytes = self.memory_bytes.to_string();
                    let limits = [
                        ("memory.limit_in_bytes", bytes.as_str()),
                        ("memory.memsw.limit_in_bytes", &bytes),
                    ];
                    run.groups.push(Group::create(parent.join(&name), &limits)?);
                }
            }
            LimitMechanism::CgroupV2 { parent } => {
                let (max, bytes) = (self.max_processes.to_string(), self.memory_bytes.to_string());
                let limits =
                    [("pids.max", max.as_str()), ("memory.max", &bytes), ("memory.swap.max", "0")];
                run.groups.push(Group::create(parent.join(&name), &limits)?);
            }
            LimitMechanism::SystemdScope | LimitMechanism::None { .. } => {}
        }
        Ok(run)
    }
}

/// This process's own cgroup in a v1 controller's hierarchy, if we may create children there.
fn v1_dir(own: &str, controller: &str) -> Option<PathBuf> {
    let path = own.lines().find_map(|line| {
        let mut fields = line.splitn(3, ':');
        let (_, controllers, path) = (fields.next()?, fields.next()?, fields.next()?);
        controllers.split(',').any(|c| c == controller).then_some(path)
    })?;
    let dir = Path::new(CGROUP_ROOT).join(controller).join(path.trim_start_matches('/'));
    let limit_file = if controller == "pids" { "pids.max" } else { "memory.limit_in_bytes" };
    can_create_child(&dir, limit_file).then_some(dir)
}

/// This process's cgroup on a pure v2 machine, if children there get pids and memory files.
fn v2_dir(own: &str) -> Option<PathBuf> {
    let path = own.lines().find_map(|line| line.strip_prefix("0::"))?;
    let root = Path::new(CGROUP_ROOT);
    if !root.join("cgroup.controllers").exists() {
        return None;
    }
    let dir = root.join(path.trim_start_matches('/'));
    (can_create_child(&dir, "pids.max") && can_create_child(&dir, "memory.max")).then_some(dir)
}

fn can_create_child(dir: &Path, limit_file: &str) -> bool {
    let probe = dir.join(format!("preflight-sandbox-probe-{}", std::process::id()));
    let made = fs::create_dir(&probe).is_ok();
    let works = made && probe.join(limit_file).exists() && probe.join("cgroup.procs").exists();
    if made {
        let _ = fs::remove_dir(&probe);
    }
    works
}

fn systemd_scope_works() -> bool {
    std::process::Command::new("systemd-run")
        .args(["--user", "--scope", "--quiet", "--property=TasksMax=8", "--", "true"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// One run's cgroups. The child joins them before it executes anything (see `join_fds`);
/// `finish` kills whatever is left in them and removes them.
#[derive(Debug)]
pub struct RunCgroups {
    groups: Vec<Group>,
}

#[derive(Debug)]
struct Group {
    dir: PathBuf,
    procs: File,
}

impl Group {
    fn create(dir: PathBuf, limits: &[(&str, &str)]) -> Result<Group, SandboxError> {
        fs::create_dir(&dir)
            .map_err(|e| SandboxError::io(format!("creating {}", dir.display()), e))?;
        for (file, value) in limits {
            let path = dir.join(file);
            // Optional files (swap accounting) may be absent; the main limits must hold.
            let optional = file.contains("memsw") || file.contains("swap");
            if let Err(e) = fs::write(&path, value) {
                if !optional {
                    let _ = fs::remove_dir(&dir);
                    return Err(SandboxError::io(format!("writing {}", path.display()), e));
                }
            }
        }
        let procs = OpenOptions::new().write(true).open(dir.join("cgroup.procs"));
        let procs = procs
            .map_err(|e| SandboxError::io(format!("opening {}/cgroup.procs", dir.display()), e))?;
        Ok(Group { dir, procs })
    }
}

impl RunCgroups {
    /// Descriptors of each group's `cgroup.procs`: the child writes "0" to each between fork
    /// and exec, so it is inside before it can start anything.
    pub fn join_fds(&self) -> Vec<RawFd> {
        self.groups.iter().map(|g| g.procs.as_raw_fd()).collect()
    }

    /// What the limits did during the run, in plain words (empty when nothing was hit).
    pub fn events(&self) -> Vec<String> {
        let mut notes = Vec::new();
        for group in &self.groups {
            if counter(&group.dir.join("pids.events"), "max") > 0 {
                notes.push("the process limit was reached: some forks were refused".to_string());
            }
            let oom = counter(&group.dir.join("memory.oom_control"), "oom_kill")
                + counter(&group.dir.join("memory.events"), "oom_kill");
            if oom > 0 {
                notes.push("the memory limit was reached: the kernel killed a process".to_string());
            }
        }
        notes
    }

    /// SIGKILL to every process still in the groups, once: what a run leaves behind is dead
    /// (or dying) before its result is returned. Blocking only for reading `cgroup.procs`.
    pub fn kill_remaining(&self) {
        for group in &self.groups {
            let pids = fs::read_to_string(group.dir.join("cgroup.procs")).unwrap_or_default();
            for pid in pids.lines().filter_map(|p| p.trim().parse::<libc::pid_t>().ok()) {
                // SAFETY: kill(2) with a pid read from our own run's cgroup.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
        }
    }

    /// Kills every process still in the groups until they are empty, then removes them.
    /// Blocking (short sleeps): run it off the result's path, after `kill_remaining`.
    pub fn finish(self) {
        for group in &self.groups {
            for _ in 0..200 {
                let pids = fs::read_to_string(group.dir.join("cgroup.procs")).unwrap_or_default();
                if pids.trim().is_empty() && fs::remove_dir(&group.dir).is_ok() {
                    break;
                }
                for pid in pids.lines().filter_map(|p| p.trim().parse::<libc::pid_t>().ok()) {
                    // SAFETY: kill(2) with a pid read from our own run's cgroup.
                    unsafe { libc::kill(pid, libc::SIGKILL) };
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

fn counter(path: &Path, key: &str) -> u64 {
    let text = fs::read_to_string(path).unwrap_or_default();
    text.lines().find_map(|line| line.strip_prefix(key)?.trim().parse().ok()).unwrap_or(0)
}

/// Makes the child join the cgroups behind `join_fds` between fork and exec, so it is
/// inside before it can start anything, and caps the files it (and all it starts) may write
/// at `file_bytes`.
pub(crate) fn join_before_exec(
    command: &mut tokio::process::Command,
    join_fds: Vec<i32>,
    file_bytes: u64,
) {
    // SAFETY: between fork and exec the closure only calls write(2) on descriptors the parent
    // holds open and setrlimit(2), both async-signal-safe, and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            let cap = libc::rlimit { rlim_cur: file_bytes, rlim_max: file_bytes };
            if libc::setrlimit(libc::RLIMIT_FSIZE, &cap) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            for fd in &join_fds {
                // "0" moves the writing process: the child joins before it can fork.
                if libc::write(*fd, b"0".as_ptr().cast(), 1) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            Ok(())
        });
    }
}
