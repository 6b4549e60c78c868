//! Changing files of the work tree for a restore: inside it only, never through a symbolic
//! link, each write atomic (a temp file beside the target, flushed, renamed over it).
//!
//! **Invariant:** every path is a plain relative path (no `..`, no `.`, no `.git`) and every
//! folder on the way is checked with `lstat` (never followed) just before it is used.

use std::ffi::OsStr;
use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, ErrorKind, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use crate::error::CheckpointError;
use crate::stage::display;

const SYMLINK: u32 = 0o120000;
const EXECUTABLE: u32 = 0o100755;

/// Why `path` may not be touched at all, if it may not.
pub(crate) fn unsafe_path(path: &[u8]) -> Option<&'static str> {
    if path.is_empty() || path.starts_with(b"/") {
        return Some("not a path inside the workspace");
    }
    path.split(|b| *b == b'/').find_map(|part| match part {
        b"" | b"." | b".." => Some("not a plain path inside the workspace"),
        _ if part.eq_ignore_ascii_case(b".git") => Some("inside a .git folder"),
        _ => None,
    })
}

/// The first folder on the way to `path` (relative) that exists but is not a folder: a
/// symbolic link or a file. `None` when every one is a real folder or missing.
pub(crate) fn blocking_ancestor(root: &Path, path: &[u8]) -> Option<Vec<u8>> {
    let mut at = 0;
    while let Some(slash) = path[at..].iter().position(|b| *b == b'/') {
        let ancestor = &path[..at + slash];
        match fs::symlink_metadata(root.join(OsStr::from_bytes(ancestor))) {
            Ok(meta) if meta.is_dir() => at += slash + 1,
            Ok(_) => return Some(ancestor.to_vec()),
            Err(_) => return None,
        }
    }
    None
}

/// Deletes the file or symlink `path`; false when it was already gone (or became a folder,
/// which a restore never removes whole).
pub(crate) fn delete(root: &Path, path: &[u8]) -> Result<bool, CheckpointError> {
    refuse_blocked(root, path)?;
    let full = root.join(OsStr::from_bytes(path));
    match fs::symlink_metadata(&full) {
        Ok(meta) if meta.is_dir() => Ok(false),
        Ok(_) => fs::remove_file(&full).map(|()| true).map_err(|e| CheckpointError::io(full, e)),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(false),
        Err(error) => Err(CheckpointError::io(full, error)),
    }
}

/// Removes the folders above `path` that its deletion left empty, up to the work tree.
pub(crate) fn prune_empty_parents(root: &Path, path: &[u8]) {
    let mut folder = Path::new(OsStr::from_bytes(path)).parent();
    while let Some(relative) = folder.filter(|f| !f.as_os_str().is_empty()) {
        if fs::remove_dir(root.join(relative)).is_err() {
            return;
        }
        folder = relative.parent();
    }
}

/// Writes `bytes` at `path` as git's `mode` says: a symlink, an executable or a plain file.
/// Missing folders are created; an empty folder in the way is removed.
pub(crate) fn write(
    root: &Path,
    path: &[u8],
    mode: u32,
    bytes: &[u8],
) -> Result<(), CheckpointError> {
    let full = make_parents(root, path)?;
    if let Ok(meta) = fs::symlink_metadata(&full) {
        if meta.is_dir() && fs::remove_dir(&full).is_err() {
            return Err(refused(path, "a folder with files in it is where the file goes"));
        }
    }
    if mode == SYMLINK {
        write_symlink(&full, bytes)
    } else {
        write_regular(&full, bytes, mode == EXECUTABLE)
    }
}

fn refuse_blocked(root: &Path, path: &[u8]) -> Result<(), CheckpointError> {
    if let Some(why) = unsafe_path(path) {
        return Err(refused(path, why));
    }
    match blocking_ancestor(root, path) {
        Some(_) => Err(refused(path, "a folder on the way is a symbolic link or a file")),
        None => Ok(()),
    }
}

/// Creates the missing folders on the way to `path`, refusing a symlink or file among them.
fn make_parents(root: &Path, path: &[u8]) -> Result<PathBuf, CheckpointError> {
    refuse_blocked(root, path)?;
    let full = root.join(OsStr::from_bytes(path));
    let mut folder = root.to_path_buf();
    let parents =
        Path::new(OsStr::from_bytes(path)).parent().into_iter().flat_map(Path::components);
    for part in parents {
        folder.push(part);
        match fs::create_dir(&folder) {
            Err(error) if error.kind() != ErrorKind::AlreadyExists => {
                return Err(CheckpointError::io(folder, error));
            }
            // A folder made by someone else since the look is checked again, not followed.
            _ if !fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir()) => {
                return Err(refused(path, "a folder on the way is a symbolic link or a file"));
            }
            _ => {}
        }
    }
    Ok(full)
}

fn write_symlink(full: &Path, target: &[u8]) -> Result<(), CheckpointError> {
    let temp = preflight_files::temp_path_for(full);
    let linked = std::os::unix::fs::symlink(OsStr::from_bytes(target), &temp)
        .and_then(|()| fs::rename(&temp, full));
    if let Err(error) = linked {
        let _ = fs::remove_file(&temp);
        return Err(CheckpointError::io(full, error));
    }
    Ok(preflight_files::sync_dir(full.parent().unwrap_or(full))?)
}

/// A new file gets the umask's permissions (as git's checkout gives); a file replaced keeps
/// its own, with the executable bits set or cleared as the checkpoint says.
fn write_regular(full: &Path, bytes: &[u8], executable: bool) -> Result<(), CheckpointError> {
    let kept =
        fs::symlink_metadata(full).ok().filter(|m| m.is_file()).map(|m| m.permissions().mode());
    let temp = preflight_files::temp_path_for(full);
    let written = (|| -> io::Result<()> {
        let fresh = if executable { 0o777 } else { 0o666 };
        let mut file = OpenOptions::new().write(true).create_new(true).mode(fresh).open(&temp)?;
        file.write_all(bytes)?;
        if let Some(mode) = kept {
            file.set_permissions(Permissions::from_mode(with_executable(
                mode & 0o777,
                executable,
            )))?;
        }
        Ok(())
    })();
    if let Err(error) = written {
        let _ = fs::remove_file(&temp);
        return Err(CheckpointError::io(temp, error));
    }
    Ok(preflight_files::persist(&temp, full)?)
}

/// `mode` with an executable bit for each read bit, or with none.
fn with_executable(mode: u32, executable: bool) -> u32 {
    if executable {
        mode | ((mode & 0o444) >> 2)
    } else {
        mode & !0o111
    }
}

fn refused(path: &[u8], why: &'static str) -> CheckpointError {
    CheckpointError::Refused { path: display(path), why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_plain_paths_inside_the_workspace_are_safe() {
        let cases: [(&[u8], bool); 9] = [
            (b"a.txt", true),
            (b"src/lib.rs", true),
            (b".gitignore", true),
            (b"../outside", false),
            (b"a/../../b", false),
            (b"/etc/passwd", false),
            (b"a//b", false),
            (b".git/config", false),
            (b"sub/.GIT/hooks/x", false),
        ];
        for (path, safe) in cases {
            assert_eq!(unsafe_path(path).is_none(), safe, "{}", display(path));
        }
    }

    #[test]
    fn executable_bits_follow_the_read_bits() {
        assert_eq!(with_executable(0o644, true), 0o755);
        assert_eq!(with_executable(0o600, true), 0o700);
        assert_eq!(with_executable(0o755, false), 0o644);
    }

    #[test]
    fn a_symlinked_folder_blocks_the_way() {
        let (root, outside) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        fs::create_dir(root.path().join("real")).unwrap();
        std::os::unix::fs::symlink(outside.path(), root.path().join("link")).unwrap();
        assert_eq!(blocking_ancestor(root.path(), b"real/a"), None);
        assert_eq!(blocking_ancestor(root.path(), b"missing/deeper/a"), None);
        assert_eq!(blocking_ancestor(root.path(), b"link/a"), Some(b"link".to_vec()));
        let error = write(root.path(), b"link/x", 0o100644, b"no").unwrap_err();
        assert!(matches!(error, CheckpointError::Refused { .. }), "{error}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0, "nothing written outside");
    }
}
