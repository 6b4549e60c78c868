//! Taking a checkpoint: the workspace's files go into the chat's shadow repository (in the
//! data folder, `checkpoints/<chat>.git`, never the user's own `.git`) and its record into
//! the store, with the task list as it stands and what changed since the checkpoint before.
//!
//! **Invariant:** a checkpoint that cannot be taken never stops the work: the caller tells
//! the chat (`ERR_CHECKPOINT`) and goes on. Git runs on a blocking thread, never inside a
//! store transaction.

pub use preflight_protocol::checkpoints::{
    last_turn_start, task_moves, task_spans, ChangeStat, Checkpoint, CheckpointReason, LeftOut,
    TaskSpan,
};

use std::path::{Path, PathBuf};
use std::sync::Arc;

use preflight_checkpoints::{CheckpointError, Limits, ShadowRepo, Snapshot};
use preflight_dwp::now_rfc3339;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::TaskList;
use preflight_store::Store;

/// Where a chat's checkpoints go: its store, the data folder and its workspace.
#[derive(Clone)]
pub struct CheckpointLink {
    pub store: Arc<Store>,
    pub home: PathBuf,
    pub workspace: PathBuf,
}

/// The chat's shadow repository in the data folder.
pub fn shadow_dir(home: &Path, chat_id: &ChatId) -> PathBuf {
    home.join("checkpoints").join(format!("{chat_id}.git"))
}

/// Opens (creating when absent) the chat's shadow repository over `workspace`.
pub fn open_shadow(
    home: &Path,
    chat_id: &ChatId,
    workspace: &Path,
) -> Result<ShadowRepo, CheckpointError> {
    ShadowRepo::open(&shadow_dir(home, chat_id), workspace, Limits::default())
}

/// Why a checkpoint could not be taken, as the chat reads it.
pub type CheckpointFailure = String;

impl CheckpointLink {
    /// The chat's link, when it has a workspace to take checkpoints of.
    pub fn for_chat(store: &Arc<Store>, home: &Path, chat_id: &ChatId) -> Option<CheckpointLink> {
        let workspace = store.get_chat(chat_id).ok()?.workspace?;
        let (store, home) = (Arc::clone(store), home.to_owned());
        Some(CheckpointLink { store, home, workspace: PathBuf::from(workspace) })
    }

    /// Takes a checkpoint for `reason`. A `Task` checkpoint is taken only when a task
    /// started or was closed since the checkpoint before (`None` otherwise); the first
    /// checkpoint before a turn of an approved plan is the plan's `Approval` checkpoint.
    pub async fn take(
        &self,
        chat_id: &ChatId,
        reason: CheckpointReason,
    ) -> Result<Option<Checkpoint>, CheckpointFailure> {
        let tasks = self.store.task_list(chat_id).map_err(|e| e.to_string())?;
        self.record(chat_id, reason, tasks, None).await
    }

    /// The checkpoint right after a restore to checkpoint `to`, with `tasks` put back.
    pub async fn take_restored(
        &self,
        chat_id: &ChatId,
        to: u32,
        tasks: TaskList,
    ) -> Result<Option<Checkpoint>, CheckpointFailure> {
        self.record(chat_id, CheckpointReason::Restore, tasks, Some(to)).await
    }

    async fn record(
        &self,
        chat_id: &ChatId,
        reason: CheckpointReason,
        tasks: TaskList,
        restored_to: Option<u32>,
    ) -> Result<Option<Checkpoint>, CheckpointFailure> {
        let previous = self.store.last_checkpoint(chat_id).map_err(|e| e.to_string())?;
        let (started, closed) = task_moves(previous.as_ref().map(|c| &c.tasks), &tasks);
        if reason == CheckpointReason::Task && started.is_none() && closed.is_empty() {
            return Ok(None);
        }
        let reason = match (reason, &previous) {
            (CheckpointReason::TurnStart, None) if !tasks.planned.is_empty() => {
                CheckpointReason::Approval
            }
            _ => reason,
        };
        let since = previous.map(|checkpoint| checkpoint.commit);
        let (snapshot, stat) = self.snapshot(chat_id, reason, since).await?;
        let checkpoint = Checkpoint {
            n: 0,
            reason,
            created_at: now_rfc3339(),
            commit: snapshot.commit,
            started,
            closed,
            since_previous: stat,
            left_out: left_out_list(snapshot.skipped),
            restored_to,
            tasks,
        };
        let stored = self.store.add_checkpoint(chat_id, checkpoint);
        stored.map(Some).map_err(|error| format!("the checkpoint could not be stored: {error}"))
    }

    /// The snapshot itself, and what changed since the commit `since`.
    async fn snapshot(
        &self,
        chat_id: &ChatId,
        reason: CheckpointReason,
        since: Option<String>,
    ) -> Result<(Snapshot, ChangeStat), CheckpointFailure> {
        let (home, workspace, chat) = (self.home.clone(), self.workspace.clone(), chat_id.clone());
        let taken = tokio::task::spawn_blocking(move || {
            let repo = open_shadow(&home, &chat, &workspace)?;
            let snapshot = repo.snapshot(&format!("{reason:?}"))?;
            let stat = match since {
                Some(since) => change_stat(&repo.stat(&since, &snapshot.commit)?),
                None => ChangeStat::default(),
            };
            Ok::<_, CheckpointError>((snapshot, stat))
        })
        .await;
        match taken {
            Ok(Ok(taken)) => Ok(taken),
            Ok(Err(error)) => {
                Err(format!("A checkpoint of the workspace could not be taken: {error}"))
            }
            Err(_) => {
                Err("A checkpoint of the workspace could not be taken: its task failed".into())
            }
        }
    }
}

/// The crate's figures as the API shows them.
pub fn change_stat(stat: &preflight_checkpoints::DiffStat) -> ChangeStat {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    ChangeStat {
        files: count(stat.files),
        additions: count(stat.additions),
        deletions: count(stat.deletions),
    }
}

/// How many left-out files a checkpoint names; the rest are counted in one more entry (the
/// first checkpoint of a huge folder may leave out thousands).
const MAX_LEFT_OUT: usize = 50;

fn left_out_list(skipped: Vec<preflight_checkpoints::Skipped>) -> Vec<LeftOut> {
    let more = skipped.len().saturating_sub(MAX_LEFT_OUT);
    let mut named: Vec<LeftOut> = skipped.into_iter().take(MAX_LEFT_OUT).map(left_out).collect();
    if more > 0 {
        let reason = format!("and {more} more files left out");
        named.push(LeftOut { path: String::new(), bytes: 0, reason });
    }
    named
}

fn left_out(skipped: preflight_checkpoints::Skipped) -> LeftOut {
    LeftOut { path: skipped.path, bytes: skipped.bytes, reason: skipped.reason.as_str().to_owned() }
}
