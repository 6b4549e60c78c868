//! The work tree as it is now, as a tree object, without taking a checkpoint: staged into a
//! scratch copy of the shadow index (its stat cache makes this as cheap as a snapshot), so
//! the shadow index, the refs and the checkpoints stay as they were.

use std::fs;
use std::io::ErrorKind;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::error::CheckpointError;
use crate::git::Deadline;
use crate::repo::ShadowRepo;
use crate::snapshot::write_tree;
use crate::stage::stage;

static SCRATCH_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Stages the work tree into a scratch index and returns it written as a tree. A left-out
/// file that an earlier checkpoint held is dropped from the scratch index, so the tree holds
/// only what the work tree holds now: a left-out file is not in it.
pub(crate) fn current_state(
    repo: &ShadowRepo,
    deadline: Deadline,
) -> Result<String, CheckpointError> {
    let scratch = ScratchIndex::copy_of(repo)?;
    let git = repo.git.with_index(scratch.path.clone());
    let staged = stage(&git, &repo.work_tree, &repo.limits, deadline)?;
    if !staged.left_out.is_empty() {
        let input: Vec<u8> = staged
            .left_out
            .iter()
            .flat_map(|path| path.strip_suffix(b"/").unwrap_or(path).iter().copied().chain([0]))
            .collect();
        git.output(&["update-index", "--force-remove", "-z", "--stdin"], &input, deadline)?;
    }
    write_tree(&git, deadline)
}

/// A copy of the shadow index in the git folder, removed (with any lock git left) on drop.
struct ScratchIndex {
    path: PathBuf,
}

impl ScratchIndex {
    fn copy_of(repo: &ShadowRepo) -> Result<ScratchIndex, CheckpointError> {
        let counter = SCRATCH_COUNTER.fetch_add(1, Ordering::Relaxed);
        let name = format!("index.scratch.{}.{counter}", std::process::id());
        let scratch = ScratchIndex { path: repo.git_dir.join(name) };
        match fs::copy(repo.git.index_file(), &scratch.path) {
            Ok(_) => Ok(scratch),
            // No checkpoint yet: the scratch index starts empty.
            Err(error) if error.kind() == ErrorKind::NotFound => Ok(scratch),
            Err(error) => Err(CheckpointError::io(&scratch.path, error)),
        }
    }
}

impl Drop for ScratchIndex {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
        let mut lock = self.path.clone().into_os_string();
        lock.push(".lock");
        let _ = fs::remove_file(lock);
    }
}
