//! How Preflight puts files on disk: every file it writes goes through here.
//!
//! A write is a temp file in the target's folder, flushed to disk, renamed over the target,
//! and then the folder is flushed, so a reader (or a crash, or a power cut) sees the old file
//! or the new one, never a truncated one. `write_new` is the write-once variant (it never
//! replaces); `persist` finishes a file that was streamed into a temp name of its own.
//!
//! Reading a file of a folder Preflight does not trust (a cloned repository) goes through
//! `read_regular_capped`: a regular file inside the folder, never through a symlink, and at
//! most a given number of bytes of it.

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
#[cfg(unix)]
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// An I/O failure with the file it happened to.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct FileError {
    pub path: PathBuf,
    #[source]
    pub source: io::Error,
}

impl FileError {
    pub fn new(path: impl Into<PathBuf>, source: io::Error) -> FileError {
        FileError { path: path.into(), source }
    }

    /// Whether the write failed because the file already exists (`write_new`).
    pub fn is_already_exists(&self) -> bool {
        self.source.kind() == ErrorKind::AlreadyExists
    }
}

/// Who may read a new file: the umask's default, or the owner alone (tokens, keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    Default,
    OwnerOnly,
}

impl Access {
    fn mode(self) -> u32 {
        match self {
            Access::Default => 0o666,
            Access::OwnerOnly => 0o600,
        }
    }
}

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Creates `path` and its missing parents readable by the owner alone (0700); an existing
/// folder is left as it is.
pub fn create_private_dir(path: &Path) -> Result<(), FileError> {
    use std::os::unix::fs::DirBuilderExt;
    if path.is_dir() {
        return Ok(());
    }
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|error| FileError::new(path, error))
}

/// Replaces `path` with `bytes` atomically (the folder must exist).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    write_atomic_with(path, bytes, Access::Default)
}

/// `write_atomic` with the new file's access.
pub fn write_atomic_with(path: &Path, bytes: &[u8], access: Access) -> Result<(), FileError> {
    let temp = write_temp(path, bytes, access)?;
    persist(&temp, path)
}

/// Creates `path` with `bytes` atomically, failing with `AlreadyExists` when it is there:
/// the temp file is hard-linked to the name, which the OS refuses when the name exists.
/// Of two processes racing to create the same file exactly one wins; the other can read
/// the winner's complete file.
pub fn write_new(path: &Path, bytes: &[u8], access: Access) -> Result<(), FileError> {
    let temp = write_temp(path, bytes, access)?;
    let linked = match fs::hard_link(&temp, path) {
        Err(error) if error.kind() != ErrorKind::AlreadyExists && !path.exists() => {
            // A file system without hard links: rename, which is atomic but may replace.
            fs::rename(&temp, path)
        }
        other => other,
    };
    let _ = fs::remove_file(&temp);
    linked.map_err(|error| FileError::new(path, error))?;
    sync_parent(path)
}

/// Moves a finished temp file (in the target's folder) over `target`: flushes it, renames
/// it, flushes the folder. On failure the temp file is removed.
pub fn persist(temp: &Path, target: &Path) -> Result<(), FileError> {
    let flushed = File::open(temp).and_then(|file| file.sync_all());
    let renamed = flushed.and_then(|()| fs::rename(temp, target));
    if let Err(error) = renamed {
        let _ = fs::remove_file(temp);
        return Err(FileError::new(target, error));
    }
    sync_parent(target)
}

/// A fresh temp name beside `path`, which `is_temp_name` recognises.
pub fn temp_path_for(path: &Path) -> PathBuf {
    let name = path.file_name().map(|name| name.to_string_lossy()).unwrap_or_default();
    let counter = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}.{counter}.tmp", std::process::id()))
}

/// Whether `name` is one of our temp files (left behind only by a crash).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

/// Flushes a folder's entries, so a rename inside it survives a power cut.
pub fn sync_dir(dir: &Path) -> Result<(), FileError> {
    #[cfg(unix)]
    File::open(dir).and_then(|folder| folder.sync_all()).map_err(|e| FileError::new(dir, e))?;
    #[cfg(not(unix))]
    let _ = dir;
    Ok(())
}

fn sync_parent(path: &Path) -> Result<(), FileError> {
    match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => sync_dir(dir),
        _ => sync_dir(Path::new(".")),
    }
}

fn write_temp(path: &Path, bytes: &[u8], access: Access) -> Result<PathBuf, FileError> {
    let temp = temp_path_for(path);
    let written = (|| {
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        options.mode(access.mode());
        #[cfg(not(unix))]
        let _ = access;
        let mut file = options.open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(FileError::new(temp, error));
    }
    Ok(temp)
}

/// What [`read_regular_capped`] read: at most the cap, and whether the file went on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CappedRead {
    pub bytes: Vec<u8>,
    /// The file holds more than `bytes`.
    pub truncated: bool,
}

/// Reads at most `cap` bytes of `root/relative`, a regular file inside `root`. Refused, with
/// `ErrorKind::InvalidInput`: a `relative` that is not a plain path going down (absolute,
/// `..`, `.`), a symlink anywhere below `root` (the file itself or a folder on the way), and
/// anything but a regular file (a FIFO, a device, a folder), which is never opened. A missing
/// file is `ErrorKind::NotFound`. The file is opened with `O_NOFOLLOW | O_NONBLOCK` and
/// checked again once open, so a swap after the check cannot make it read something else.
/// Blocking: call it off an async runtime.
pub fn read_regular_capped(
    root: &Path,
    relative: &Path,
    cap: usize,
) -> Result<CappedRead, FileError> {
    let path = root.join(relative);
    let refuse = |why: &str| FileError::new(&path, io::Error::new(ErrorKind::InvalidInput, why));
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            _ => return Err(refuse("not a plain path inside the folder")),
        }
    }
    let Some(name) = parts.pop() else { return Err(refuse("not a plain path inside the folder")) };
    let mut folder = fs::canonicalize(root).map_err(|error| FileError::new(root, error))?;
    for part in parts {
        folder.push(part);
        let kind = fs::symlink_metadata(&folder).map_err(|e| FileError::new(&path, e))?;
        if !kind.is_dir() {
            return Err(refuse("a folder on the way is a symbolic link or not a folder"));
        }
    }
    let target = folder.join(name);
    let kind = fs::symlink_metadata(&target).map_err(|error| FileError::new(&path, error))?;
    if kind.file_type().is_symlink() {
        return Err(refuse("is a symbolic link"));
    }
    if !kind.is_file() {
        return Err(refuse("is not a regular file"));
    }
    let file = open_no_follow(&target).map_err(|error| FileError::new(&path, error))?;
    read_open_capped(file, &path, cap)
}

/// Reads at most `cap` bytes of the regular file `path` leads to, links followed: for a
/// folder the user trusts (their own data folder), never a workspace. A FIFO or device is
/// refused without blocking on it. Blocking: call it off an async runtime.
pub fn read_followed_capped(path: &Path, cap: usize) -> Result<CappedRead, FileError> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    let file = options.open(path).map_err(|error| FileError::new(path, error))?;
    read_open_capped(file, path, cap)
}

/// At most `cap` bytes of `file`, opened from `path`, once it shows to be a regular file.
fn read_open_capped(file: File, path: &Path, cap: usize) -> Result<CappedRead, FileError> {
    if !file.metadata().map_err(|error| FileError::new(path, error))?.is_file() {
        let why = io::Error::new(ErrorKind::InvalidInput, "is not a regular file");
        return Err(FileError::new(path, why));
    }
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    file.take(limit).read_to_end(&mut bytes).map_err(|error| FileError::new(path, error))?;
    let truncated = bytes.len() > cap;
    bytes.truncate(cap);
    Ok(CappedRead { bytes, truncated })
}

/// Opens `path` for reading without following a final symlink and without blocking on a
/// FIFO that appeared since the check.
fn open_no_follow(path: &Path) -> io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY);
    options.open(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state.json");
        write_atomic(&path, b"{\"a\":1}").unwrap();
        write_atomic(&path, b"{\"a\":2}").unwrap();
        assert_eq!(fs::read_to_string(&path).unwrap(), "{\"a\":2}");
        assert_eq!(names(dir.path()), vec!["state.json"]);
    }

    #[test]
    fn write_new_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("manifest.json");
        write_new(&path, b"first", Access::Default).unwrap();
        let error = write_new(&path, b"second", Access::Default).unwrap_err();
        assert!(error.is_already_exists(), "{error}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "first");
        assert_eq!(names(dir.path()), vec!["manifest.json"], "the temp file is gone");
    }

    #[cfg(unix)]
    #[test]
    fn owner_only_files_are_mode_0600() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("api-token");
        write_new(&path, b"secret", Access::OwnerOnly).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        write_atomic_with(&path, b"other", Access::OwnerOnly).unwrap();
        assert_eq!(fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn a_write_into_a_missing_folder_fails_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("absent/config.toml");
        let error = write_atomic(&path, b"x").unwrap_err();
        assert_eq!(error.source.kind(), ErrorKind::NotFound);
        assert!(error.to_string().contains("absent"), "{error}");
    }

    #[test]
    fn persist_moves_a_streamed_file_into_place() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("model.gguf");
        let temp = temp_path_for(&target);
        fs::write(&temp, b"weights").unwrap();
        persist(&temp, &target).unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"weights");
        assert_eq!(names(dir.path()), vec!["model.gguf"]);
    }

    #[test]
    fn temp_names_are_recognised() {
        assert!(is_temp_name(".state.json.12.0.tmp"));
        let temp = temp_path_for(Path::new("/x/state.json"));
        assert!(is_temp_name(temp.file_name().unwrap().to_str().unwrap()));
        assert!(!is_temp_name("state.json"));
        assert!(!is_temp_name(".commit"));
    }
}
