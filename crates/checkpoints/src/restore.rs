//! Restoring the work tree to a checkpoint: the plan checked whole before any file changes,
//! then the deletions (and the folders they leave empty), then the writes, byte for byte.
//!
//! **Invariant:** a file the user changed since the latest checkpoint is kept unless the
//! caller says to overwrite it; so is a file whose way is blocked by one kept.
//! **Invariant:** only files the current state holds are deleted: ignored, excluded and
//! left-out files (`.git`, `.sandbox/`, `.dwp/`, what `.gitignore` names) are never touched;
//! `.git`, `.sandbox/` and `.dwp/` are neither written nor deleted even when a checkpoint
//! holds them.
//! **Invariant:** a restore does what the caller previewed or nothing: the plan it finds is
//! hashed as `restore_plan` hashed it, and another digest than the preview's changes nothing.

use std::collections::{BTreeSet, HashMap};

use crate::error::CheckpointError;
use crate::git::Deadline;
use crate::place::{blocking_ancestor, delete, prune_empty_parents, unsafe_path, write};
use crate::plan::{Action, Planned, Step};
use crate::raw::batch_objects;
use crate::repo::ShadowRepo;
use crate::stage::display;

/// How many objects one `cat-file --batch` call reads: bounds the memory a restore holds.
const OBJECTS_PER_CALL: usize = 128;

/// What a restore did. Paths are relative to the work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestoreReport {
    pub written: Vec<String>,
    pub deleted: Vec<String>,
    /// Files the user changed since the latest checkpoint, left as they are.
    pub kept_user_changes: Vec<String>,
}

impl ShadowRepo {
    /// Puts the work tree back to checkpoint `target`: writes its files back and deletes the
    /// ones it did not have. Files the user changed since `latest` are kept unless
    /// `overwrite_user_changes`. `digest` is the previewed plan's (`RestorePlan::digest`):
    /// when the plan is another by now, `PlanChanged` and nothing is changed. A path that
    /// would be reached through a symbolic link (or leave the work tree) is refused before
    /// anything is changed; so is a checkpoint of another folder (`OtherFolder`).
    pub fn restore(
        &self,
        target: &str,
        latest: &str,
        overwrite_user_changes: bool,
        digest: &str,
    ) -> Result<RestoreReport, CheckpointError> {
        let deadline = self.deadline();
        let planned = self.planned(target, latest, deadline)?;
        if planned.digest != digest {
            return Err(CheckpointError::PlanChanged);
        }
        let (steps, kept) = self.sort_out(planned, overwrite_user_changes)?;
        let mut report = RestoreReport {
            kept_user_changes: kept.iter().map(|path| display(path)).collect(),
            ..RestoreReport::default()
        };
        let (writes, deletes): (Vec<Step>, Vec<Step>) =
            steps.into_iter().partition(|step| matches!(step.action, Action::Write { .. }));
        for step in &deletes {
            if delete(&self.work_tree, &step.path)? {
                report.deleted.push(display(&step.path));
            }
        }
        for step in &deletes {
            prune_empty_parents(&self.work_tree, &step.path);
        }
        for batch in writes.chunks(OBJECTS_PER_CALL) {
            self.write_batch(batch, deadline)?;
            report.written.extend(batch.iter().map(|step| display(&step.path)));
        }
        Ok(report)
    }

    /// The steps to take and the paths kept. Refuses the whole restore when a step's path is
    /// not plain or its way goes through a symlink or file that stays.
    fn sort_out(
        &self,
        planned: Planned,
        overwrite: bool,
    ) -> Result<(Vec<Step>, BTreeSet<Vec<u8>>), CheckpointError> {
        let mut kept = if overwrite { BTreeSet::new() } else { planned.user_changed };
        let steps: Vec<Step> =
            planned.steps.into_iter().filter(|step| !kept.contains(&step.path)).collect();
        let deleting: BTreeSet<&[u8]> = steps
            .iter()
            .filter(|step| step.action == Action::Delete)
            .map(|step| step.path.as_slice())
            .collect();
        let mut taken = Vec::with_capacity(steps.len());
        let mut blocked = Vec::new();
        for step in &steps {
            if let Some(why) = unsafe_path(&step.path) {
                return Err(CheckpointError::Refused { path: display(&step.path), why });
            }
            let writing = step.action != Action::Delete;
            match blocking_ancestor(&self.work_tree, &step.path) {
                None => taken.push(step.clone()),
                // A file or symlink this restore deletes first.
                Some(way) if writing && deleting.contains(way.as_slice()) => {
                    taken.push(step.clone())
                }
                // The user's file or symlink, kept: so is what would go beneath it.
                Some(way) if writing && kept.contains(&way) => blocked.push(step.path.clone()),
                Some(_) => return Err(through_link(step)),
            }
        }
        kept.extend(blocked);
        Ok((taken, kept))
    }

    /// Reads the batch's objects in one git call and writes each file.
    fn write_batch(&self, batch: &[Step], deadline: Deadline) -> Result<(), CheckpointError> {
        let objects: BTreeSet<&str> = batch.iter().filter_map(object_of).collect();
        let query: String = objects.iter().map(|object| format!("{object}\n")).collect();
        let answer = self.git.output(&["cat-file", "--batch"], query.as_bytes(), deadline)?;
        let contents: HashMap<String, Vec<u8>> =
            batch_objects(&answer).ok_or_else(missing_objects)?.into_iter().collect();
        for step in batch {
            let Action::Write { mode, object } = &step.action else { continue };
            let bytes = contents.get(object).ok_or_else(missing_objects)?;
            write(&self.work_tree, &step.path, *mode, bytes)?;
        }
        Ok(())
    }
}

fn object_of(step: &Step) -> Option<&str> {
    match &step.action {
        Action::Write { object, .. } => Some(object),
        Action::Delete => None,
    }
}

fn through_link(step: &Step) -> CheckpointError {
    let why = "a folder on the way is a symbolic link or a file";
    CheckpointError::Refused { path: display(&step.path), why }
}

fn missing_objects() -> CheckpointError {
    CheckpointError::Git {
        command: "git cat-file --batch".into(),
        stderr: "the checkpoint's files could not be read from the shadow repository".into(),
    }
}
