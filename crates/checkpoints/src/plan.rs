//! What a restore to a checkpoint would do: the files it writes back, the ones it deletes, and
//! among them the ones the user changed since the latest checkpoint.
//!
//! Both are read from trees: the work tree now (`current`) against the target checkpoint
//! gives the writes and deletes, against the latest checkpoint the user's changes. A file
//! that exists but that the current state does not hold (left out, ignored) counts as the
//! user's: the shadow repository has no copy of it, so it is never replaced unasked.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;

use crate::commit::CommitId;
use crate::current::current_state;
use crate::error::CheckpointError;
use crate::git::Deadline;
use crate::kept_out::never_kept;
use crate::raw::{fields, raw_changes, RawChange};
use crate::repo::{folder_record, ShadowRepo};
use crate::stage::display;

/// What `restore` would change, for the user to confirm. Paths are relative to the work tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestorePlan {
    /// Files written back: changed or deleted since the target.
    pub writes: Vec<String>,
    /// Files deleted: created since the target.
    pub deletes: Vec<String>,
    /// Among the writes and deletes, the files the user changed since the latest checkpoint:
    /// kept unless the restore is told to overwrite them.
    pub user_changed: Vec<String>,
    /// What the plan is, as a hash: the checkpoints, the folder, each file's content now and
    /// at the target, and which are the user's. `restore` takes it back and refuses when
    /// the plan it finds then is another (`PlanChanged`).
    pub digest: String,
}

/// One file a restore changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Step {
    pub path: Vec<u8>,
    pub action: Action,
    /// The current state holds this path (its content is in the shadow repository).
    pub held: bool,
    /// The path's object in the current state (zeros when it holds none).
    pub current: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Action {
    /// Write the blob `object` with git's `mode` (a file, an executable, a symlink).
    Write {
        mode: u32,
        object: String,
    },
    Delete,
}

/// A restore's steps, in path order, and the paths the user changed.
#[derive(Debug, Default)]
pub(crate) struct Planned {
    pub steps: Vec<Step>,
    pub user_changed: BTreeSet<Vec<u8>>,
    pub digest: String,
}

impl Planned {
    pub(crate) fn public(&self) -> RestorePlan {
        let mut plan = RestorePlan::default();
        for step in &self.steps {
            match step.action {
                Action::Write { .. } => plan.writes.push(display(&step.path)),
                Action::Delete => plan.deletes.push(display(&step.path)),
            }
        }
        plan.user_changed = self.user_changed.iter().map(|path| display(path)).collect();
        plan.digest = self.digest.clone();
        plan
    }
}

impl ShadowRepo {
    /// What restoring the work tree to checkpoint `target` would write and delete, and which
    /// of those files the user changed since `latest` (the most recent checkpoint taken), and
    /// the plan's digest for `restore`; `OtherFolder` for a checkpoint of another folder.
    /// Changes nothing (objects of the user's changes may be written to the shadow
    /// repository; nothing holds them, and the next `forget` prunes them).
    pub fn restore_plan(&self, target: &str, latest: &str) -> Result<RestorePlan, CheckpointError> {
        Ok(self.planned(target, latest, self.deadline())?.public())
    }

    pub(crate) fn planned(
        &self,
        target: &str,
        latest: &str,
        deadline: Deadline,
    ) -> Result<Planned, CheckpointError> {
        let commits = self.commits_of_this_folder(&[target, latest], deadline)?;
        // A left-out file is not in the current tree: never deleted, and a write over it is
        // a write over an unheld file (below).
        let current = current_state(self, deadline)?;
        let steps = self.steps(&commits[0], &current, deadline)?;
        let since_latest = self.changed_paths(&commits[1], &current, deadline)?;
        let user_changed = steps
            .iter()
            .filter(|step| since_latest.contains(&step.path) || self.unheld_file(step))
            .map(|step| step.path.clone())
            .collect();
        let digest = self.digest(&commits, &steps, &user_changed, deadline)?;
        Ok(Planned { steps, user_changed, digest })
    }

    /// The plan written out in full and hashed (git's object hash; nothing is stored).
    fn digest(
        &self,
        commits: &[CommitId],
        steps: &[Step],
        user_changed: &BTreeSet<Vec<u8>>,
        deadline: Deadline,
    ) -> Result<String, CheckpointError> {
        let hex = |bytes: &[u8]| -> String { bytes.iter().map(|b| format!("{b:02x}")).collect() };
        let mut text = format!(
            "restore plan 1\nfolder {}\ntarget {}\nlatest {}\n",
            folder_record(&self.work_tree),
            commits[0].as_str(),
            commits[1].as_str()
        );
        for step in steps {
            let action = match &step.action {
                Action::Write { mode, object } => format!("write {mode:o} {object}"),
                Action::Delete => "delete".to_owned(),
            };
            let mine = if user_changed.contains(&step.path) { "user" } else { "-" };
            let path = hex(&step.path);
            text.push_str(&format!("{action} from {} {mine} {path}\n", step.current));
        }
        let hashed = self.git.output(&["hash-object", "--stdin"], text.as_bytes(), deadline)?;
        Ok(String::from_utf8_lossy(&hashed).trim().to_owned())
    }

    /// The steps from the current tree back to `target`.
    fn steps(
        &self,
        target: &CommitId,
        current: &str,
        deadline: Deadline,
    ) -> Result<Vec<Step>, CheckpointError> {
        let args = [
            "diff-tree",
            "-r",
            "-z",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            target.as_str(),
            current,
        ];
        let listed = self.git.output(&args, b"", deadline)?;
        let changes = raw_changes(&mut fields(&listed)).ok_or_else(|| unreadable("diff-tree"))?;
        // A path no checkpoint may hold (one taken before they were kept out by name may)
        // is neither written nor deleted.
        let kept = |change: &RawChange| change.old_mode != GITLINK && !never_kept(&change.path);
        let steps = changes.into_iter().filter(kept).map(|change| {
            let held = change.status != b'D';
            let action = match change.status {
                b'A' => Action::Delete,
                _ => Action::Write { mode: change.old_mode, object: change.old_object },
            };
            Step { path: change.path, action, held, current: change.new_object }
        });
        Ok(steps.collect())
    }

    /// Whether `step` would replace a file that exists but that the current state does not
    /// hold (left out or ignored): the user's, since nothing could bring it back.
    fn unheld_file(&self, step: &Step) -> bool {
        !step.held
            && fs::symlink_metadata(self.work_tree.join(OsStr::from_bytes(&step.path))).is_ok()
    }

    /// The paths that differ between checkpoint `commit` and the tree `current`.
    fn changed_paths(
        &self,
        commit: &CommitId,
        current: &str,
        deadline: Deadline,
    ) -> Result<BTreeSet<Vec<u8>>, CheckpointError> {
        let args =
            ["diff-tree", "-r", "-z", "--name-only", "--no-renames", commit.as_str(), current];
        let listed = self.git.output(&args, b"", deadline)?;
        Ok(listed.split(|b| *b == 0).filter(|p| !p.is_empty()).map(<[u8]>::to_vec).collect())
    }
}

/// Git's mode for a submodule entry: never in a checkpoint's tree, never restored.
const GITLINK: u32 = 0o160000;

fn unreadable(command: &str) -> CheckpointError {
    CheckpointError::Git {
        command: format!("git {command}"),
        stderr: "its output could not be read".into(),
    }
}
