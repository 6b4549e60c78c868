//! The cooperative `.lock` folder that serialises writers of one plan folder.
//!
//! A writer prepares `.lock.tmp-<pid>-<n>/owner` (`pid`, `host`, `since`, a token) and
//! renames that folder to `.lock`: the rename fails while a lock (never empty) exists, so
//! exactly one writer holds it, and a held lock always names its owner. A writer that
//! finds it waits, up to a bound, for it to go.
//! A lock whose owner is gone (same host, pid not running; or held past `stale_after`, or
//! ownerless past a grace) is *reported* as stale, never broken silently: the seed wants a
//! stale lock checked before removal, so only [`break_stale_lock`] removes one, and only
//! when it can confirm that no writer remains (a pid alive on this host never is broken).
//! No protection is claimed against an editor that bypasses the lock.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime};

use super::error::DwpError;
use crate::clock::now_rfc3339;

pub(crate) const LOCK_DIR: &str = ".lock";
const OWNER_FILE: &str = "owner";
const BROKEN_PREFIX: &str = ".lock.broken-";
/// A lock folder without an owner file is a release cut short (the owner file goes first): a
/// writer's rename replaces it at once (an empty folder), and past this a reader reports it stale.
const OWNERLESS_GRACE: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LockOptions {
    /// How long a writer waits for a live holder before giving up with `LockBusy`.
    pub wait: Duration,
    /// A lock held longer than this is reported as stale (writes take milliseconds).
    pub stale_after: Duration,
}

impl Default for LockOptions {
    fn default() -> Self {
        LockOptions { wait: Duration::from_secs(10), stale_after: Duration::from_secs(120) }
    }
}

/// What the lock folder says right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum LockState {
    Free,
    Held { owner: String },
    Stale { owner: String, why: String, confirmed_dead: bool },
}

/// A held lock; dropping it releases the folder.
#[derive(Debug)]
pub(crate) struct PlanLock {
    path: PathBuf,
    token: String,
}

static CANDIDATES: AtomicU64 = AtomicU64::new(0);
const CANDIDATE_PREFIX: &str = ".lock.tmp-";

impl PlanLock {
    /// Takes the lock of `plan_dir`, waiting for a live holder up to `options.wait`.
    pub(crate) fn acquire(plan_dir: &Path, options: LockOptions) -> Result<PlanLock, DwpError> {
        let path = plan_dir.join(LOCK_DIR);
        let (candidate, token) = prepare_candidate(plan_dir)?;
        let result = wait_for_rename(plan_dir, &candidate, options);
        let _ = fs::remove_dir_all(&candidate); // still there unless the rename took it
        result.map(|()| PlanLock { path, token })
    }
}

/// `.lock.tmp-<pid>-<n>/owner`, flushed, ready to be renamed into place.
fn prepare_candidate(plan_dir: &Path) -> Result<(PathBuf, String), DwpError> {
    let counter = CANDIDATES.fetch_add(1, Ordering::Relaxed);
    let candidate = plan_dir.join(format!("{CANDIDATE_PREFIX}{}-{counter}", std::process::id()));
    fs::create_dir(&candidate).map_err(DwpError::io(&candidate))?;
    let token = format!("{}-{counter}-{}", std::process::id(), now_rfc3339());
    let owner = format!(
        "pid={}\nhost={}\nsince={}\ntoken={token}\n",
        std::process::id(),
        host_name(),
        now_rfc3339()
    );
    // Not flushed to disk: a lock only has to outlive its writer's process, not a power cut
    // (after one, an ownerless lock is reported stale and the files are whole anyway).
    let owner_path = candidate.join(OWNER_FILE);
    if let Err(error) = fs::write(&owner_path, owner) {
        let _ = fs::remove_dir_all(&candidate);
        return Err(DwpError::Io { path: owner_path, source: error });
    }
    Ok((candidate, token))
}

fn wait_for_rename(
    plan_dir: &Path,
    candidate: &Path,
    options: LockOptions,
) -> Result<(), DwpError> {
    let path = plan_dir.join(LOCK_DIR);
    let started = Instant::now();
    let mut pause = Duration::from_millis(1);
    loop {
        let renamed = fs::rename(candidate, &path);
        if renamed.is_ok() {
            return Ok(());
        }
        match inspect(plan_dir, options) {
            LockState::Free => {
                // Not held, yet the rename failed: a real error, unless the lock was released
                // between the two looks (then the next attempt succeeds).
                if started.elapsed() >= options.wait {
                    return Err(DwpError::io(&path)(renamed.unwrap_err()));
                }
            }
            LockState::Stale { owner, why, .. } => {
                return Err(DwpError::LockStale { path, owner, why })
            }
            LockState::Held { owner } if started.elapsed() >= options.wait => {
                return Err(DwpError::LockBusy { path, owner })
            }
            LockState::Held { .. } => {}
        }
        // Backing off between looks at a folder another process owns; not a test sleep.
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(25));
    }
}

impl Drop for PlanLock {
    /// Releases only a lock that is still ours (a broken-and-retaken lock is someone else's).
    fn drop(&mut self) {
        let owner = read_owner(&self.path).unwrap_or_default();
        if owner.lines().any(|line| line.strip_prefix("token=") == Some(self.token.as_str())) {
            let _ = fs::remove_file(self.path.join(OWNER_FILE));
            let _ = fs::remove_dir(&self.path);
        }
    }
}

/// Removes lock candidates and broken locks whose process is gone (a crash between
/// preparing and renaming). Call with the lock held.
pub(crate) fn remove_abandoned_candidates(plan_dir: &Path) -> Result<(), DwpError> {
    for entry in fs::read_dir(plan_dir).map_err(DwpError::io(plan_dir))? {
        let name =
            entry.map_err(DwpError::io(plan_dir))?.file_name().to_string_lossy().into_owned();
        let Some(rest) =
            name.strip_prefix(CANDIDATE_PREFIX).or_else(|| name.strip_prefix(BROKEN_PREFIX))
        else {
            continue;
        };
        let pid = rest.split('-').next().and_then(|pid| pid.parse::<u32>().ok());
        if pid.is_some_and(|pid| !process_alive(pid)) {
            let path = plan_dir.join(&name);
            fs::remove_dir_all(&path).map_err(DwpError::io(&path))?;
        }
    }
    Ok(())
}

/// Reads the lock of `plan_dir` without taking it.
pub(crate) fn inspect(plan_dir: &Path, options: LockOptions) -> LockState {
    let path = plan_dir.join(LOCK_DIR);
    let Ok(metadata) = fs::metadata(&path) else {
        return LockState::Free;
    };
    let age = metadata
        .modified()
        .ok()
        .and_then(|at| SystemTime::now().duration_since(at).ok())
        .unwrap_or_default();
    let Some(owner) = read_owner(&path).and_then(|text| Owner::parse(&text)) else {
        if age > OWNERLESS_GRACE {
            let why = format!("no owner file after {}s", age.as_secs());
            return LockState::Stale { owner: "unknown".into(), why, confirmed_dead: false };
        }
        return LockState::Held { owner: "unknown (no owner file yet)".into() };
    };
    let shown = owner.to_string();
    if owner.host == host_name() && !process_alive(owner.pid) {
        let why = format!("process {} is not running", owner.pid);
        return LockState::Stale { owner: shown, why, confirmed_dead: true };
    }
    if age >= options.stale_after {
        let why = format!("held for {}s", age.as_secs());
        return LockState::Stale { owner: shown, why, confirmed_dead: false };
    }
    LockState::Held { owner: shown }
}

/// Removes a stale lock after checking that no writer remains: the owner's pid is gone on
/// this host, or the owner is on another host (or unknown) and the lock is past
/// `stale_after`. Returns the owner it removed, `None` when there was no lock.
pub(crate) fn break_stale_lock(
    plan_dir: &Path,
    options: LockOptions,
) -> Result<Option<String>, DwpError> {
    let path = plan_dir.join(LOCK_DIR);
    let owner = match inspect(plan_dir, options) {
        LockState::Free => return Ok(None),
        LockState::Held { owner } => return Err(DwpError::LockNotStale { path, owner }),
        LockState::Stale { owner, confirmed_dead, .. } => {
            let local_and_alive = !confirmed_dead && owner_is_local_and_alive(&path);
            if local_and_alive {
                return Err(DwpError::LockNotStale { path, owner });
            }
            owner
        }
    };
    // Renamed away first, so a writer that takes a fresh lock meanwhile is not removed.
    let counter = CANDIDATES.fetch_add(1, Ordering::Relaxed);
    let aside = plan_dir.join(format!("{BROKEN_PREFIX}{}-{counter}", std::process::id()));
    fs::rename(&path, &aside).map_err(DwpError::io(&path))?;
    fs::remove_dir_all(&aside).map_err(DwpError::io(&aside))?;
    Ok(Some(owner))
}

/// The lock's owner file: a regular file of at most 4 KiB, never followed through a link (a
/// workspace may plant `.lock/owner -> /dev/zero`).
fn read_owner(lock: &Path) -> Option<String> {
    let read = preflight_files::read_regular_capped(lock, Path::new(OWNER_FILE), 4096).ok()?;
    (!read.truncated).then(|| String::from_utf8_lossy(&read.bytes).into_owned())
}

fn owner_is_local_and_alive(lock: &Path) -> bool {
    let owner = read_owner(lock).and_then(|text| Owner::parse(&text));
    owner.is_some_and(|owner| owner.host == host_name() && process_alive(owner.pid))
}

struct Owner {
    pid: u32,
    host: String,
    since: String,
}

impl Owner {
    fn parse(text: &str) -> Option<Owner> {
        let field = |key: &str| {
            text.lines()
                .find_map(|line| line.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_owned)
        };
        Some(Owner {
            pid: field("pid")?.parse().ok()?,
            host: field("host")?,
            since: field("since").unwrap_or_default(),
        })
    }
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "pid {} on {} since {}", self.pid, self.host, self.since)
    }
}

/// Whether a process with this pid exists (EPERM means it does, owned by someone else).
#[cfg(unix)]
fn process_alive(pid: u32) -> bool {
    let Ok(pid) = libc::pid_t::try_from(pid) else {
        return false;
    };
    // SAFETY: signal 0 performs only the existence and permission check.
    let result = unsafe { libc::kill(pid, 0) };
    result == 0 || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
}

/// Without a way to ask, every owner counts as alive: a lock is never broken by guess.
#[cfg(not(unix))]
fn process_alive(_pid: u32) -> bool {
    true
}

#[cfg(unix)]
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the buffer is writable for its whole length; the result is NUL-terminated
    // when it fits, and we stop at the first NUL or the end.
    let result = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    if result != 0 {
        return "unknown".to_owned();
    }
    let end = buffer.iter().position(|byte| *byte == 0).unwrap_or(buffer.len());
    String::from_utf8_lossy(&buffer[..end]).into_owned()
}

#[cfg(not(unix))]
fn host_name() -> String {
    "unknown".to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_planted_owner_file_is_never_read() {
        let lock = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", lock.path().join(OWNER_FILE)).unwrap();
        assert_eq!(read_owner(lock.path()), None);
        std::fs::remove_file(lock.path().join(OWNER_FILE)).unwrap();
        fs::write(lock.path().join(OWNER_FILE), vec![b'x'; 5000]).unwrap();
        assert_eq!(read_owner(lock.path()), None, "over the cap");
        fs::write(lock.path().join(OWNER_FILE), "pid=1\n").unwrap();
        assert_eq!(read_owner(lock.path()).as_deref(), Some("pid=1\n"));
    }

    fn quick() -> LockOptions {
        LockOptions { wait: Duration::from_millis(30), stale_after: Duration::from_secs(120) }
    }

    #[test]
    fn a_held_lock_makes_the_next_writer_wait_then_give_up() {
        let dir = tempfile::tempdir().unwrap();
        let held = PlanLock::acquire(dir.path(), quick()).unwrap();
        assert!(matches!(inspect(dir.path(), quick()), LockState::Held { .. }));
        let error = PlanLock::acquire(dir.path(), quick()).unwrap_err();
        assert!(matches!(error, DwpError::LockBusy { .. }), "{error}");
        assert!(matches!(
            break_stale_lock(dir.path(), quick()),
            Err(DwpError::LockNotStale { .. })
        ));
        drop(held);
        assert_eq!(inspect(dir.path(), quick()), LockState::Free);
        PlanLock::acquire(dir.path(), quick()).unwrap();
    }

    #[test]
    fn a_dead_owner_is_reported_and_broken_only_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(LOCK_DIR);
        fs::create_dir(&lock).unwrap();
        // A pid above the kernel's maximum never runs.
        fs::write(
            lock.join(OWNER_FILE),
            format!("pid=2147483647\nhost={}\nsince=x\n", host_name()),
        )
        .unwrap();
        let error = PlanLock::acquire(dir.path(), quick()).unwrap_err();
        assert!(matches!(error, DwpError::LockStale { .. }), "{error}");
        assert!(error.to_string().contains(".lock"), "the error names the lock: {error}");
        assert!(lock.exists(), "a stale lock is never broken silently");
        let broken = break_stale_lock(dir.path(), quick()).unwrap();
        assert!(broken.unwrap().contains("2147483647"));
        assert!(!lock.exists());
        PlanLock::acquire(dir.path(), quick()).unwrap();
    }

    #[test]
    fn a_held_lock_always_names_its_owner_and_leftovers_of_dead_writers_go() {
        let dir = tempfile::tempdir().unwrap();
        let held = PlanLock::acquire(dir.path(), quick()).unwrap();
        let owner = fs::read_to_string(dir.path().join(LOCK_DIR).join(OWNER_FILE)).unwrap();
        assert!(owner.starts_with(&format!("pid={}\nhost=", std::process::id())), "{owner}");
        let names = |dir: &Path| {
            fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(names(dir.path()), vec![LOCK_DIR], "the candidate became the lock");
        fs::create_dir(dir.path().join(".lock.tmp-2147483647-0")).unwrap();
        fs::create_dir(dir.path().join(format!(".lock.tmp-{}-99", std::process::id()))).unwrap();
        remove_abandoned_candidates(dir.path()).unwrap();
        let mut left = names(dir.path());
        left.sort();
        assert_eq!(
            left,
            vec![LOCK_DIR.to_owned(), format!(".lock.tmp-{}-99", std::process::id())],
            "a live writer's candidate stays"
        );
        drop(held);
    }

    #[test]
    fn a_lock_of_another_host_is_held_until_it_is_old() {
        let dir = tempfile::tempdir().unwrap();
        let lock = dir.path().join(LOCK_DIR);
        fs::create_dir(&lock).unwrap();
        fs::write(lock.join(OWNER_FILE), "pid=1\nhost=elsewhere.invalid\nsince=x\n").unwrap();
        assert!(matches!(inspect(dir.path(), quick()), LockState::Held { .. }));
        let old = LockOptions { stale_after: Duration::ZERO, ..quick() };
        assert!(matches!(inspect(dir.path(), old), LockState::Stale { confirmed_dead: false, .. }));
        assert!(break_stale_lock(dir.path(), old).unwrap().is_some());
    }
}
