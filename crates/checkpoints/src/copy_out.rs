//! A checkpoint's files written into another, empty folder (a fork's own copy of the
//! workspace, DESIGN §15 "Fork"): every file the checkpoint holds, byte for byte with its
//! mode, read from the shadow repository alone.
//!
//! **Invariant:** the work tree is neither read nor written: only the repository's objects
//! are read, and only the new folder is written, which may be neither inside the work tree
//! nor hold it. `.git`, `.sandbox/` and `.dwp/` are never written, as a restore never does.

use std::fs;
use std::path::{Path, PathBuf};

use crate::error::CheckpointError;
use crate::git::Deadline;
use crate::kept_out::never_kept;
use crate::place::{unsafe_path, write};
use crate::raw::batch_objects;
use crate::repo::ShadowRepo;
use crate::stage::display;

/// How many objects one `cat-file --batch` call reads: bounds the memory a copy holds.
const OBJECTS_PER_CALL: usize = 128;

/// A file of a checkpoint's tree: its path, git's mode and its blob.
struct Entry {
    path: Vec<u8>,
    mode: u32,
    object: String,
}

impl ShadowRepo {
    /// Writes checkpoint `commit`'s files into the folder `into`, which must exist, be empty
    /// and lie outside the work tree (nor hold it). Returns the paths written, relative to
    /// `into`. A path the checkpoint holds that is not plain is refused before anything is
    /// written; a failure part way leaves what was written for the caller to remove.
    pub fn copy_out(&self, commit: &str, into: &Path) -> Result<Vec<String>, CheckpointError> {
        let into = checked_folder(into, &self.work_tree)?;
        let deadline = self.deadline();
        let commit = self.known_commits(&[commit], deadline)?.remove(0);
        let args = ["ls-tree", "-r", "-z", "--full-tree", commit.as_str()];
        let listed = self.git.output(&args, b"", deadline)?;
        let entries = tree_entries(&listed).ok_or_else(|| CheckpointError::Git {
            command: "git ls-tree".into(),
            stderr: "its output could not be read".into(),
        })?;
        if let Some((entry, why)) =
            entries.iter().find_map(|e| unsafe_path(&e.path).map(|why| (e, why)))
        {
            return Err(CheckpointError::Refused { path: display(&entry.path), why });
        }
        for batch in entries.chunks(OBJECTS_PER_CALL) {
            self.write_entries(&into, batch, deadline)?;
        }
        Ok(entries.iter().map(|entry| display(&entry.path)).collect())
    }

    fn write_entries(
        &self,
        into: &Path,
        batch: &[Entry],
        deadline: Deadline,
    ) -> Result<(), CheckpointError> {
        let query: String = batch.iter().map(|entry| format!("{}\n", entry.object)).collect();
        let answer = self.git.output(&["cat-file", "--batch"], query.as_bytes(), deadline)?;
        let objects = batch_objects(&answer).filter(|objects| objects.len() == batch.len());
        let objects = objects.ok_or_else(|| CheckpointError::Git {
            command: "git cat-file --batch".into(),
            stderr: "the checkpoint's files could not be read from the shadow repository".into(),
        })?;
        for (entry, (_, bytes)) in batch.iter().zip(objects) {
            write(into, &entry.path, entry.mode, &bytes)?;
        }
        Ok(())
    }
}

/// `into` as a real path: an existing, empty folder that neither lies in `work_tree` nor
/// holds it.
fn checked_folder(into: &Path, work_tree: &Path) -> Result<PathBuf, CheckpointError> {
    let real = fs::canonicalize(into).map_err(|error| CheckpointError::io(into, error))?;
    let refuse =
        |why: &'static str| CheckpointError::Refused { path: into.display().to_string(), why };
    let mut entries = fs::read_dir(&real).map_err(|error| CheckpointError::io(into, error))?;
    if entries.next().is_some() {
        return Err(refuse("the folder a copy goes into must be empty"));
    }
    if real.starts_with(work_tree) || work_tree.starts_with(&real) {
        return Err(refuse("the copy must go outside the workspace it was taken of"));
    }
    Ok(real)
}

/// The files of `git ls-tree -r -z` output (`<mode> <type> <object>\t<path>\0` each), but
/// what no checkpoint holds (`.git`, `.sandbox/`, `.dwp/`) and anything but blobs.
fn tree_entries(output: &[u8]) -> Option<Vec<Entry>> {
    let mut entries = Vec::new();
    for record in output.split(|b| *b == 0).filter(|record| !record.is_empty()) {
        let tab = record.iter().position(|b| *b == b'\t')?;
        let header = std::str::from_utf8(&record[..tab]).ok()?;
        let mut fields = header.split(' ');
        let (mode, kind, object) = (fields.next()?, fields.next()?, fields.next()?);
        let path = record[tab + 1..].to_vec();
        if kind != "blob" || never_kept(&path) {
            continue;
        }
        let mode = u32::from_str_radix(mode, 8).ok()?;
        entries.push(Entry { path, mode, object: object.to_owned() });
    }
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::tree_entries;

    #[test]
    fn a_tree_listing_gives_its_blobs_but_what_no_checkpoint_holds() {
        let records: [&[u8]; 5] = [
            b"100644 blob aaaa\ta.txt",
            b"100755 blob bbbb\tbin/run",
            b"120000 blob cccc\tlink",
            b"160000 commit dddd\tsub",
            b"100644 blob eeee\t.dwp/x",
        ];
        let output: Vec<u8> = records.iter().flat_map(|r| r.iter().chain(b"\0")).copied().collect();
        let entries = tree_entries(&output).unwrap();
        let seen: Vec<(&[u8], u32, &str)> =
            entries.iter().map(|e| (e.path.as_slice(), e.mode, e.object.as_str())).collect();
        let expected: Vec<(&[u8], u32, &str)> = vec![
            (b"a.txt", 0o100644, "aaaa"),
            (b"bin/run", 0o100755, "bbbb"),
            (b"link", 0o120000, "cccc"),
        ];
        assert_eq!(seen, expected);
        assert!(tree_entries(b"100644 blob aaaa a.txt\0").is_none());
    }
}
