//! Taking a checkpoint: the work tree staged into the shadow index, written as a tree, and
//! committed as a parentless commit held by a ref of its own.
//!
//! Parentless, not chained: a chain would make every older checkpoint reachable from the
//! newest, so letting one go (`forget`) would free nothing. Each commit is held by
//! `refs/checkpoints/<commit>` alone; what no kept checkpoint shares is pruned once its ref
//! goes. Unchanged files and folders are shared between checkpoints as git objects anyway.

use std::fs;
use std::io::ErrorKind;

use crate::commit::CommitId;
use crate::error::CheckpointError;
use crate::git::{Deadline, Git};
use crate::repo::{folder_record, ShadowRepo, FOLDER_TRAILER, INDEX_FOLDER_FILE};
use crate::stage::{drop_never_kept, stage, Skipped};

/// Past this many loose objects (trees and commits) or packs (each checkpoint's new files
/// are one), a snapshot rolls them up (`git repack --geometric=2`): small packs and loose
/// objects merge into larger ones, so the repository stays a few files per tenfold of
/// content and a checkpoint costs its changes' bytes rather than a disk block per object.
/// Geometric roll-ups touch mostly what is new: their cost stays proportional to it.
const LOOSE_OBJECTS_BEFORE_PACKING: u64 = 256;
const PACKS_BEFORE_PACKING: u64 = 16;

/// A checkpoint just taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// The checkpoint's commit in the shadow repository: what `diff` and `restore` take.
    pub commit: String,
    /// Files left out of this checkpoint, for the caller to tell the user.
    pub skipped: Vec<Skipped>,
    /// Files added, changed or deleted since the checkpoint before.
    pub changed: usize,
}

impl ShadowRepo {
    /// Takes a checkpoint of the work tree with `message` (kept in the commit). The user's
    /// `.gitignore` files are honoured; `.git`, `.sandbox/` and `.dwp/` are never kept.
    pub fn snapshot(&self, message: &str) -> Result<Snapshot, CheckpointError> {
        let taken = self.take(message);
        if let Err(CheckpointError::TimedOut { .. }) = taken {
            // The killed git may have left its index lock behind. There is one writer at a
            // time, so the lock is that git's, and without this no snapshot could follow.
            let mut lock = self.git.index_file().as_os_str().to_owned();
            lock.push(".lock");
            let _ = std::fs::remove_file(lock);
        }
        taken
    }

    fn take(&self, message: &str) -> Result<Snapshot, CheckpointError> {
        let deadline = self.deadline();
        self.index_of_this_folder(deadline)?;
        let before = write_tree(&self.git, deadline)?;
        let staged = stage(&self.git, &self.work_tree, &self.limits, deadline)?;
        let tree = write_tree(&self.git, deadline)?;
        let changed =
            if tree == before { 0 } else { count_changes(&self.git, &before, &tree, deadline)? };
        let folder = folder_record(&self.work_tree);
        let message = format!("{}\n\n{FOLDER_TRAILER}{folder}\n", message.trim_end());
        let commit = commit_tree(&self.git, &tree, &message, deadline)?;
        let args = ["update-ref", &commit.ref_name(), commit.as_str()];
        self.git.output(&args, b"", deadline)?;
        pack_when_due(&self.git, deadline)?;
        Ok(Snapshot { commit: commit.as_str().to_owned(), skipped: staged.skipped, changed })
    }
}

impl ShadowRepo {
    /// Makes the shadow index one of this work tree before a checkpoint stages into it. Of
    /// another folder (the chat's workspace moved), it is dropped: the first checkpoint here
    /// starts afresh rather than from the other folder's files. Never recorded (an index from
    /// before checkpoints named their folder), it loses the entries no checkpoint may hold.
    /// Runs with the snapshot, the one writer of the index.
    fn index_of_this_folder(&self, deadline: Deadline) -> Result<(), CheckpointError> {
        let record = self.git_dir.join(INDEX_FOLDER_FILE);
        let here = folder_record(&self.work_tree);
        match fs::read_to_string(&record) {
            Ok(folder) if folder == here => return Ok(()),
            Ok(_) => match fs::remove_file(self.git.index_file()) {
                Err(error) if error.kind() != ErrorKind::NotFound => {
                    return Err(CheckpointError::io(self.git.index_file(), error));
                }
                _ => {}
            },
            Err(_) => drop_never_kept(&self.git, deadline)?,
        }
        Ok(preflight_files::write_atomic(&record, here.as_bytes())?)
    }
}

/// The index as a tree object; its name.
pub(crate) fn write_tree(git: &Git, deadline: Deadline) -> Result<String, CheckpointError> {
    let tree = git.output(&["write-tree"], b"", deadline)?;
    Ok(String::from_utf8_lossy(&tree).trim().to_owned())
}

/// Rolls loose objects and small packs up when there are many of them.
fn pack_when_due(git: &Git, deadline: Deadline) -> Result<(), CheckpointError> {
    let counts = git.output(&["count-objects", "-v"], b"", deadline)?;
    let counts = String::from_utf8_lossy(&counts);
    let count = |name: &str| {
        let line = counts.lines().find_map(|line| line.strip_prefix(name));
        line.and_then(|value| value.trim().parse::<u64>().ok()).unwrap_or(0)
    };
    if count("count:") > LOOSE_OBJECTS_BEFORE_PACKING || count("packs:") > PACKS_BEFORE_PACKING {
        git.output(&["repack", "--geometric=2", "-d", "-q"], b"", deadline)?;
    }
    Ok(())
}

fn count_changes(
    git: &Git,
    before: &str,
    after: &str,
    deadline: Deadline,
) -> Result<usize, CheckpointError> {
    let args = ["diff-tree", "-r", "-z", "--no-renames", "--name-only", before, after];
    let names = git.output(&args, b"", deadline)?;
    Ok(names.split(|b| *b == 0).filter(|name| !name.is_empty()).count())
}

fn commit_tree(
    git: &Git,
    tree: &str,
    message: &str,
    deadline: Deadline,
) -> Result<CommitId, CheckpointError> {
    let commit = git.output(&["commit-tree", tree, "-F", "-"], message.as_bytes(), deadline)?;
    let commit = String::from_utf8_lossy(&commit);
    CommitId::parse(commit.trim()).map_err(|_| CheckpointError::Git {
        command: "git commit-tree".into(),
        stderr: format!("gave {:?}, not a commit name", commit.trim()),
    })
}
