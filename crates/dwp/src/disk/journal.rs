//! Writing the files of one protocol point together: `state.json`, `README.md` and
//! `PROGRESS.md` change as one, so a crash can never leave a ticked box over a state that
//! does not say completed (or the reverse).
//!
//! Each new file is first written whole as `NAME.next` (atomically), then a `.commit`
//! marker naming them is written (atomically); from then on the change is decided. Each
//! `.next` is renamed over its target and the marker removed. `recover`, run under the
//! lock before any read, finishes a decided change and throws away an undecided one.

use std::fs;
use std::io::ErrorKind;
use std::path::Path;

use preflight_files::{is_temp_name, sync_dir, write_atomic};

use super::error::DwpError;

pub(crate) const MARKER: &str = ".commit";
const NEXT_SUFFIX: &str = ".next";

/// Replaces every `(name, text)` of `files` in `dir` as one change.
pub(crate) fn commit(dir: &Path, files: &[(&str, &str)]) -> Result<(), DwpError> {
    for (name, text) in files {
        write_atomic(&dir.join(format!("{name}{NEXT_SUFFIX}")), text.as_bytes())?;
    }
    let names: Vec<&str> = files.iter().map(|(name, _)| *name).collect();
    write_atomic(&dir.join(MARKER), names.join("\n").as_bytes())?;
    roll_forward(dir, &names)
}

/// What `recover` found: whether a decided change was finished, and what was removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Recovery {
    pub(crate) rolled_forward: Vec<String>,
    pub(crate) removed: Vec<String>,
}

/// The largest commit marker read (it names a few files).
const MARKER_CAP: usize = 64 * 1024;

/// Finishes or discards what a crashed writer left. Call with the lock held.
pub(crate) fn recover(dir: &Path) -> Result<Recovery, DwpError> {
    let mut recovery = Recovery::default();
    let marker = dir.join(MARKER);
    // The marker as a regular file of at most 64 KiB, never through a link (a planted
    // `.commit -> /dev/zero` is an error, not a read without end).
    let read = preflight_files::read_regular_capped(dir, Path::new(MARKER), MARKER_CAP);
    let read = match read {
        Ok(read) if read.truncated => Err(std::io::Error::new(
            ErrorKind::InvalidData,
            format!("is over {} KiB: not a commit marker", MARKER_CAP >> 10),
        )),
        Ok(read) => Ok(String::from_utf8_lossy(&read.bytes).into_owned()),
        Err(error) => Err(error.source),
    };
    match read {
        Ok(text) => {
            let names: Vec<&str> = text.lines().filter(|name| !name.is_empty()).collect();
            recovery.rolled_forward = names.iter().map(|name| (*name).to_owned()).collect();
            roll_forward(dir, &names)?;
        }
        Err(error) if error.kind() == ErrorKind::NotFound => {}
        Err(error) => return Err(DwpError::Io { path: marker, source: error }),
    }
    for entry in fs::read_dir(dir).map_err(DwpError::io(dir))? {
        let name = entry.map_err(DwpError::io(dir))?.file_name().to_string_lossy().into_owned();
        if name.ends_with(NEXT_SUFFIX) || is_temp_name(&name) {
            let path = dir.join(&name);
            fs::remove_file(&path).map_err(DwpError::io(&path))?;
            recovery.removed.push(name);
        }
    }
    Ok(recovery)
}

/// Whether a decided change is still waiting to be finished (for the verifier).
pub(crate) fn has_pending_commit(dir: &Path) -> bool {
    dir.join(MARKER).exists()
}

fn roll_forward(dir: &Path, names: &[&str]) -> Result<(), DwpError> {
    for name in names {
        let next = dir.join(format!("{name}{NEXT_SUFFIX}"));
        match fs::rename(&next, dir.join(name)) {
            Ok(()) => {}
            // Renamed before a crash; recovery goes on with the rest.
            Err(error) if error.kind() == ErrorKind::NotFound => {}
            Err(error) => return Err(DwpError::Io { path: next, source: error }),
        }
    }
    sync_dir(dir)?;
    let marker = dir.join(MARKER);
    fs::remove_file(&marker).map_err(DwpError::io(&marker))?;
    Ok(sync_dir(dir)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(dir: &Path, name: &str) -> String {
        fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn a_planted_marker_is_refused_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(MARKER)).unwrap();
        let error = recover(dir.path()).unwrap_err();
        assert!(error.to_string().contains("symbolic link"), "{error}");
        std::fs::remove_file(dir.path().join(MARKER)).unwrap();
        fs::write(dir.path().join(MARKER), vec![b'a'; MARKER_CAP + 1]).unwrap();
        let error = recover(dir.path()).unwrap_err();
        assert!(error.to_string().contains("not a commit marker"), "{error}");
    }

    #[test]
    fn a_commit_replaces_all_its_files() {
        let dir = tempfile::tempdir().unwrap();
        commit(dir.path(), &[("a", "1"), ("b", "2")]).unwrap();
        commit(dir.path(), &[("a", "3"), ("b", "4")]).unwrap();
        assert_eq!((read(dir.path(), "a"), read(dir.path(), "b")), ("3".into(), "4".into()));
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[test]
    fn recovery_finishes_a_decided_change_and_drops_an_undecided_one() {
        // Decided: the marker exists, one file already renamed, the other still `.next`.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path();
        fs::write(path.join("a"), "new").unwrap();
        fs::write(path.join("b"), "old").unwrap();
        fs::write(path.join("b.next"), "new").unwrap();
        fs::write(path.join(MARKER), "a\nb").unwrap();
        let recovery = recover(path).unwrap();
        assert_eq!(recovery.rolled_forward, vec!["a", "b"]);
        assert_eq!((read(path, "a"), read(path, "b")), ("new".into(), "new".into()));
        assert!(!has_pending_commit(path));

        // Undecided: `.next` files and a temp file without a marker are thrown away.
        fs::write(path.join("a.next"), "newer").unwrap();
        fs::write(path.join(".b.next.1.2.tmp"), "half").unwrap();
        let recovery = recover(path).unwrap();
        assert!(recovery.rolled_forward.is_empty());
        assert_eq!(recovery.removed.len(), 2);
        assert_eq!(read(path, "a"), "new");
    }
}
