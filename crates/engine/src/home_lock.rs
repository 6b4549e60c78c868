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
    /// holds it. Never waits.
    pub fn acquire(home: &Path, program: &str) -> Result<HomeLock, HomeLockError> {
        let path = home.join(LOCK_FILE);
        let io = |source| HomeLockError::Io { path: path.clone(), source };
        let mut file = open_lock_file(&path).map_err(io)?;
        if !try_lock_exclusive(&file).map_err(io)? {
            let holder = wait_for_holder(&mut file);
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
