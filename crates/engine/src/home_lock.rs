//! One process per data folder: an exclusive lock on `$PREFLIGHT_HOME/preflight.lock`.
//!
//! Two processes on one folder (the window opened twice, or beside `preflight serve`) would
//! both accept turns for the same chat and settle each other's live turns at start-up, so
//! the engine takes this lock before it opens the store. It is an advisory `flock` on an
//! open file: the kernel drops it when the holder exits, however it exits, so there is no
//! stale lock to clean up. The file names its holder (program, pid, since when) for the
//! message the next opener shows. Readers that change nothing (`preflight tasks`, `dwp
//! verify`) never take it.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

/// The lock file in the data folder.
pub const LOCK_FILE: &str = "preflight.lock";

/// Why the data folder could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum HomeLockError {
    #[error(
        "the data folder {} is in use by {holder}: close that first, or point \
         PREFLIGHT_HOME at another folder",
        home.display()
    )]
    Held { home: PathBuf, holder: String },
    #[error("cannot lock the data folder ({}): {source}", path.display())]
    Io { path: PathBuf, source: std::io::Error },
}

/// The held lock; dropping it (or the process ending) releases it.
#[derive(Debug)]
pub struct HomeLock {
    home: PathBuf,
    _file: File,
}

impl HomeLock {
    /// Takes the data folder's lock for `program` (e.g. "preflight serve"), or says who
    /// holds it. Never waits for another process that is alive; a holder whose process is
    /// gone (killed, its lock still held for a moment by a child it was forking), or that is
    /// this very process (an engine just closed while another thread forks), is given
    /// [`DEAD_HOLDER_GRACE`] to let go.
    pub fn acquire(home: &Path, program: &str) -> Result<HomeLock, HomeLockError> {
        let path = home.join(LOCK_FILE);
        let io = |source| HomeLockError::Io { path: path.clone(), source };
        let mut file = open_lock_file(&path).map_err(io)?;
        if !try_lock_exclusive(&file).map_err(io)? {
            let holder = wait_for_holder(&mut file);
            if holder_may_let_go(&holder) && lock_within(&file, DEAD_HOLDER_GRACE).map_err(io)? {
                write_holder(&mut file, program).map_err(io)?;
                return Ok(HomeLock { home: home.to_owned(), _file: file });
            }
            let holder =
                if holder.is_empty() { "another Preflight process".into() } else { holder };
            return Err(HomeLockError::Held { home: home.to_owned(), holder });
        }
        write_holder(&mut file, program).map_err(io)?;
        Ok(HomeLock { home: home.to_owned(), _file: file })
    }

    /// The data folder this lock holds.
    pub fn home(&self) -> &Path {
        &self.home
    }
}

fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The lock file is never a symlink followed somewhere else.
        options.mode(0o600).custom_flags(libc::O_NOFOLLOW);
    }
    options.open(path)
}

/// `flock(LOCK_EX | LOCK_NB)`: true when taken, false when another open file holds it.
#[cfg(unix)]
fn try_lock_exclusive(file: &File) -> std::io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock on a file descriptor this `File` owns; no memory is involved.
    let taken = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if taken == 0 {
        return Ok(true);
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(code) if code == libc::EWOULDBLOCK => Ok(false),
        _ => Err(error),
    }
}

#[cfg(not(unix))]
fn try_lock_exclusive(file: &File) -> std::io::Result<bool> {
    match file.try_lock() {
        Ok(()) => Ok(true),
        Err(std::fs::TryLockError::WouldBlock) => Ok(false),
        Err(std::fs::TryLockError::Error(error)) => Err(error),
    }
}

/// How long a start waits for the lock of a holder whose process is gone. Seen in the soak
/// run (issue 53): `serve` SIGKILLed and started again at once was refused naming the
/// killed pid, the lock let go a moment later (a child between fork and exec holds the
/// lock file's open description until it execs).
const DEAD_HOLDER_GRACE: std::time::Duration = std::time::Duration::from_secs(3);

/// Whether the holder line names a process that no longer exists, or this process itself.
/// The second is seen in the CI run of issue 53: a test closed an engine and opened the
/// folder again while another thread of the same process forked a server; the child held
/// the closed lock file's open description until its exec.
fn holder_may_let_go(holder: &str) -> bool {
    let pid = holder.split("(pid ").nth(1).and_then(|rest| rest.split([',', ')']).next());
    let Some(pid) = pid.and_then(|pid| pid.trim().parse::<i32>().ok()).filter(|pid| *pid > 0)
    else {
        return false;
    };
    pid == std::process::id() as i32 || process_is_gone(pid)
}

#[cfg(unix)]
fn process_is_gone(pid: i32) -> bool {
    // SAFETY: signal 0 only asks whether the process exists; nothing is sent.
    let asked = unsafe { libc::kill(pid, 0) };
    asked == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ESRCH)
}

#[cfg(not(unix))]
fn process_is_gone(_: i32) -> bool {
    false
}

/// Tries the lock again every 20 ms until `grace` has passed.
fn lock_within(file: &File, grace: std::time::Duration) -> std::io::Result<bool> {
    let deadline = std::time::Instant::now() + grace;
    while std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(20));
        if try_lock_exclusive(file)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The holder writes its line just after taking the lock: a start racing it may find the
/// file still empty, so it looks again a few times (at most ~100 ms, only on this refusal).
fn wait_for_holder(file: &mut File) -> String {
    for _ in 0..10 {
        let holder = read_holder(file).unwrap_or_default();
        if !holder.is_empty() {
            return holder;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    String::new()
}

/// The holder line, read with a cap (the file is ours, but a cap costs nothing).
fn read_holder(file: &mut File) -> std::io::Result<String> {
    let mut text = String::new();
    file.seek(SeekFrom::Start(0))?;
    file.take(1024).read_to_string(&mut text)?;
    Ok(text.trim().to_owned())
}

fn write_holder(file: &mut File, program: &str) -> std::io::Result<()> {
    let since = preflight_dwp::now_rfc3339();
    let line = format!("{program} (pid {}, since {since})\n", std::process::id());
    file.set_len(0)?;
    file.seek(SeekFrom::Start(0))?;
    file.write_all(line.as_bytes())?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_folder_names_the_first_holder() {
        let home = tempfile::tempdir().unwrap();
        let first = HomeLock::acquire(home.path(), "preflight serve").unwrap();
        let error = HomeLock::acquire(home.path(), "the Preflight window").unwrap_err();
        let message = error.to_string();
        assert!(message.contains("in use by preflight serve (pid "), "{message}");
        assert!(message.contains(&std::process::id().to_string()), "{message}");
        drop(first);
        let again = HomeLock::acquire(home.path(), "the Preflight window").unwrap();
        assert_eq!(again.home(), home.path());
    }

    /// A lock whose holder line names a process that is gone, held a moment longer (as by
    /// a child of the killed holder), is taken once it is let go; a live holder (here this
    /// very process, given the same grace) is still refused.
    #[cfg(unix)]
    #[test]
    fn a_dead_holders_lingering_lock_is_waited_for_and_a_live_one_is_not() {
        let home = tempfile::tempdir().unwrap();
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead_pid = gone.id();
        gone.wait().unwrap();
        let lingering = open_lock_file(&home.path().join(LOCK_FILE)).unwrap();
        assert!(try_lock_exclusive(&lingering).unwrap());
        let line = format!("preflight serve (pid {dead_pid}, since 2026-12-05T00:00:00Z)\n");
        std::fs::write(home.path().join(LOCK_FILE), line).unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(300));
            drop(lingering);
        });
        let taken = HomeLock::acquire(home.path(), "preflight serve").unwrap();
        release.join().unwrap();
        let line = std::fs::read_to_string(home.path().join(LOCK_FILE)).unwrap();
        assert!(line.contains(&format!("(pid {},", std::process::id())), "{line}");

        let refused = HomeLock::acquire(home.path(), "the Preflight window").unwrap_err();
        assert!(matches!(refused, HomeLockError::Held { .. }), "{refused}");
        drop(taken);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_symlink_is_not_followed() {
        let home = tempfile::tempdir().unwrap();
        let elsewhere = tempfile::NamedTempFile::new().unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), home.path().join(LOCK_FILE)).unwrap();
        let error = HomeLock::acquire(home.path(), "preflight serve").unwrap_err();
        assert!(matches!(error, HomeLockError::Io { .. }), "{error}");
        assert_eq!(std::fs::read(elsewhere.path()).unwrap(), b"", "the target is untouched");
    }
}
