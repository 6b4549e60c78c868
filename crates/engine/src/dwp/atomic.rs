//! Atomic file writes: a temp file in the same folder, flushed to disk, then renamed over
//! the target, then the folder flushed. A reader (or a crash) sees the old file or the new
//! one, never a truncated one. `write_new` is the write-once variant `manifest.json` needs.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::error::DwpError;

static TEMP_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Replaces `dir/name` with `bytes` atomically.
pub fn write_atomic(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), DwpError> {
    let temp = write_temp(dir, name, bytes)?;
    let target = dir.join(name);
    fs::rename(&temp, &target).map_err(|error| {
        let _ = fs::remove_file(&temp);
        DwpError::Io { path: target, source: error }
    })?;
    sync_dir(dir)
}

/// Creates `dir/name` with `bytes` atomically, failing with `AlreadyExists` if it is there:
/// the temp file is hard-linked to the name, which the OS refuses when the name exists.
pub fn write_new(dir: &Path, name: &str, bytes: &[u8]) -> Result<(), DwpError> {
    let temp = write_temp(dir, name, bytes)?;
    let target = dir.join(name);
    let linked = match fs::hard_link(&temp, &target) {
        Err(error) if error.kind() != ErrorKind::AlreadyExists && !target.exists() => {
            // A file system without hard links: rename, which is atomic but may replace.
            fs::rename(&temp, &target)
        }
        other => other,
    };
    let _ = fs::remove_file(&temp);
    linked.map_err(DwpError::io(&target))?;
    sync_dir(dir)
}

/// Whether `name` is one of our temp files (left behind only by a crash).
pub fn is_temp_name(name: &str) -> bool {
    name.starts_with('.') && name.ends_with(".tmp")
}

fn write_temp(dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf, DwpError> {
    let counter = TEMP_COUNTER.fetch_add(1, Ordering::Relaxed);
    let temp = dir.join(format!(".{name}.{}.{counter}.tmp", std::process::id()));
    let written = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).open(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(DwpError::Io { path: temp, source: error });
    }
    Ok(temp)
}

/// Flushes the folder's entries, so the rename itself survives a power cut.
pub fn sync_dir(dir: &Path) -> Result<(), DwpError> {
    #[cfg(unix)]
    File::open(dir).and_then(|folder| folder.sync_all()).map_err(DwpError::io(dir))?;
    #[cfg(not(unix))]
    let _ = (dir, File::open);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn atomic_write_replaces_and_leaves_no_temp() {
        let dir = tempfile::tempdir().unwrap();
        write_atomic(dir.path(), "state.json", b"{\"a\":1}").unwrap();
        write_atomic(dir.path(), "state.json", b"{\"a\":2}").unwrap();
        assert_eq!(fs::read_to_string(dir.path().join("state.json")).unwrap(), "{\"a\":2}");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(names, vec!["state.json"]);
    }

    #[test]
    fn write_new_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        write_new(dir.path(), "manifest.json", b"first").unwrap();
        let error = write_new(dir.path(), "manifest.json", b"second").unwrap_err();
        assert!(
            matches!(error, DwpError::Io { ref source, .. } if source.kind() == ErrorKind::AlreadyExists),
            "{error}"
        );
        assert_eq!(fs::read_to_string(dir.path().join("manifest.json")).unwrap(), "first");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "the temp file is gone");
    }

    #[test]
    fn temp_names_are_recognised() {
        assert!(is_temp_name(".state.json.12.0.tmp"));
        assert!(!is_temp_name("state.json"));
        assert!(!is_temp_name(".commit"));
    }
}
