//! The checkpoints of a chat as the adapters see them (issue 31): the list with each task's
//! span and figures, the diff between two checkpoints, what a restore would change, and the
//! restore itself — the workspace's files and the task list put back together, recorded as
//! an entry in the chat.
//!
//! **Invariant:** a restore runs only while no turn runs, holding the chat's turn so none
//! can start meanwhile; a file the user changed since the latest checkpoint is kept unless
//! the user asked to overwrite it.
//! **Invariant:** a restore does what its preview showed or nothing: it carries the
//! preview's digest, and a plan changed since is `ERR_CHECKPOINT_CONFLICT`; so is a
//! restore or a diff of a checkpoint of another folder (the chat's workspace moved).

use preflight_agent::checkpoints::{
    change_stat, last_turn_start, open_shadow, task_spans, ChangeStat, Checkpoint, CheckpointLink,
    TaskSpan,
};
use preflight_agent::events::Event;
use preflight_agent::WorkChange;
use preflight_checkpoints::{CheckpointError, FileDiff, ShadowRepo, Truncated};
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Message, MessageBody, Restored};
use preflight_protocol::ids::{ChatId, MessageId};
use serde::{Deserialize, Serialize};

use crate::lifecycle::engine::{Engine, Inner};
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::hub::TurnKind;
use crate::lifecycle::view::ChatView;

/// `GET /v1/chats/{id}/checkpoints`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CheckpointList {
    /// Oldest first.
    pub checkpoints: Vec<Checkpoint>,
    /// Each task's latest span and what it changed, in the order the tasks started.
    pub tasks: Vec<TaskSpan>,
    /// The checkpoint "Undo the last turn" restores, when there is one.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub undo_turn: Option<u32>,
}

/// One file's change between two checkpoints.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct FileChange {
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub old_path: Option<String>,
    /// `added`, `modified`, `deleted`, `renamed` or `type_changed`.
    pub status: String,
    pub additions: u32,
    pub deletions: u32,
    pub binary: bool,
    /// The patch is not shown: too large alone, or past what was left of the diff's budget
    /// (`truncated` counts those); the figures stand.
    pub too_large: bool,
    /// The unified diff of this file (none for a binary or too large file).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub patch: Option<String>,
}

/// `GET /v1/chats/{id}/checkpoints/{n}/diff?to=m`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct CheckpointDiff {
    pub from: u32,
    pub to: u32,
    /// The figures of every changed file, listed or not.
    pub stat: ChangeStat,
    pub files: Vec<FileChange>,
    /// Present when the diff was past its size budget: what it left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub truncated: Option<DiffTruncated>,
}

/// What a diff past its size budget left out: the last files in all, and the patches of
/// listed files (each marked `too_large`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DiffTruncated {
    /// Changed files not listed.
    pub files_left_out: u32,
    /// Listed files whose patch was left out.
    pub patches_left_out: u32,
    /// The patch text left out, in bytes.
    pub bytes_left_out: u64,
    /// The diff's budget, in bytes.
    pub budget: u64,
}

/// `GET /v1/chats/{id}/checkpoints/{n}/restore`: what a restore to `to` would do.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RestorePreview {
    pub to: u32,
    /// Files the restore writes back (changed or deleted since).
    pub writes: Vec<String>,
    /// Files created since, which the restore deletes.
    pub deletes: Vec<String>,
    /// Among those, the files the user changed since the latest checkpoint: kept unless
    /// the restore is asked to overwrite them.
    pub user_changed: Vec<String>,
    /// Tasks open again after the restore.
    pub reopens: Vec<u32>,
    /// This plan's digest: the restore sends it back, and is refused
    /// (`ERR_CHECKPOINT_CONFLICT`, nothing changed) when the plan is another by then.
    pub digest: String,
}

/// `POST /v1/chats/{id}/checkpoints/{n}/restore`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(deny_unknown_fields)]
pub struct RestoreRequest {
    /// The `digest` of the preview the user confirmed (`GET …/restore`).
    pub digest: String,
    /// Overwrite the files the user changed since the latest checkpoint too.
    #[serde(default)]
    pub overwrite_user_changes: bool,
}

impl Engine {
    /// The chat's checkpoints and each task's span with what it changed.
    pub async fn checkpoints(&self, chat_id: &ChatId) -> Result<CheckpointList, ApiError> {
        let checkpoints = self.inner.store.checkpoints(chat_id)?;
        let mut tasks = task_spans(&checkpoints);
        let undo_turn = last_turn_start(&checkpoints).map(|c| c.n);
        let Some(latest) = checkpoints.last() else {
            return Ok(CheckpointList { checkpoints, tasks, undo_turn });
        };
        // Every span's ends are checkpoints of the list (task_spans reads them from it).
        let commit = |n: u32| checkpoints.iter().find(|c| c.n == n).map(|c| c.commit.clone());
        let pairs: Vec<Option<(String, String)>> = tasks
            .iter()
            .map(|span| Some((commit(span.from)?, commit(span.to.unwrap_or(latest.n))?)))
            .collect();
        let stats: Vec<Option<ChangeStat>> = self
            .with_shadow(chat_id, move |repo| {
                let stat =
                    |(from, to): &(String, String)| repo.stat(from, to).map(|s| change_stat(&s));
                pairs.iter().map(|pair| pair.as_ref().map(stat).transpose()).collect()
            })
            .await?;
        for (span, stat) in tasks.iter_mut().zip(stats) {
            span.stat = stat.unwrap_or_default();
        }
        Ok(CheckpointList { checkpoints, tasks, undo_turn })
    }

    /// The diff from checkpoint `from` to `to` (the latest when `None`).
    pub async fn checkpoint_diff(
        &self,
        chat_id: &ChatId,
        from: u32,
        to: Option<u32>,
    ) -> Result<CheckpointDiff, ApiError> {
        let start = self.checkpoint_numbered(chat_id, from)?;
        let end = match to {
            Some(to) => self.checkpoint_numbered(chat_id, to)?,
            None => self.inner.store.last_checkpoint(chat_id)?.unwrap_or_else(|| start.clone()),
        };
        let (a, b) = (start.commit.clone(), end.commit.clone());
        let diff = self.with_shadow(chat_id, move |repo| repo.diff(&a, &b)).await?;
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let stat = ChangeStat {
            files: count(diff.changed_files()),
            additions: count(diff.additions),
            deletions: count(diff.deletions),
        };
        let truncated = diff.truncated.map(diff_truncated);
        let files = diff.files.into_iter().map(file_change).collect();
        Ok(CheckpointDiff { from: start.n, to: end.n, stat, files, truncated })
    }

    /// What a restore to checkpoint `n` would write, delete and keep.
    pub async fn restore_preview(
        &self,
        chat_id: &ChatId,
        n: u32,
    ) -> Result<RestorePreview, ApiError> {
        let target = self.checkpoint_numbered(chat_id, n)?;
        let latest = self.inner.store.last_checkpoint(chat_id)?.unwrap_or_else(|| target.clone());
        let (to, since) = (target.commit.clone(), latest.commit.clone());
        let plan = self.with_shadow(chat_id, move |repo| repo.restore_plan(&to, &since)).await?;
        Ok(RestorePreview {
            to: n,
            writes: plan.writes,
            deletes: plan.deletes,
            user_changed: plan.user_changed,
            reopens: target.tasks.open_ids(),
            digest: plan.digest,
        })
    }

    /// Restores the workspace's files and the task list to checkpoint `n` as its preview
    /// (`request.digest`) showed. `ERR_TURN_ACTIVE` while a turn runs, `ERR_PLAN_PENDING`
    /// while a card waits, `ERR_CHECKPOINT_CONFLICT` when the plan changed since the preview
    /// or the checkpoint is of another folder; each changes nothing.
    pub async fn restore_checkpoint(
        &self,
        chat_id: &ChatId,
        n: u32,
        request: RestoreRequest,
    ) -> Result<ChatView, ApiError> {
        let (target, guard) = {
            let _serial = self.serialize();
            let chat = self.inner.store.get_chat(chat_id)?;
            let facts = self.facts(&chat)?;
            if facts.running.is_some() {
                return Err(ApiError::turn_active());
            }
            let target = self.checkpoint_numbered(chat_id, n)?;
            (target, self.claim_turn(chat_id, TurnKind::Executor)?)
        };
        let restored = restore(&self.inner, chat_id, target, request).await;
        if let (Ok(_), Ok(list)) = (&restored, self.inner.store.task_list(chat_id)) {
            let change = WorkChange::Restored { checkpoint: n, list: &list };
            self.inner.tell_work(chat_id, change, &guard.cancel).await;
        }
        drop(guard);
        let entry = restored?;
        self.emit(chat_id, Event::Message { message: entry });
        self.emit_task_list(chat_id);
        self.chat_view(chat_id)
    }

    fn checkpoint_numbered(&self, chat_id: &ChatId, n: u32) -> Result<Checkpoint, ApiError> {
        self.inner.store.checkpoint(chat_id, n)?.ok_or_else(|| {
            ApiError::new(ErrorCode::NotFound, format!("no checkpoint {n} in chat {chat_id}"))
        })
    }

    /// Runs `work` on the chat's shadow repository on a blocking thread.
    async fn with_shadow<T: Send + 'static>(
        &self,
        chat_id: &ChatId,
        work: impl FnOnce(&ShadowRepo) -> Result<T, CheckpointError> + Send + 'static,
    ) -> Result<T, ApiError> {
        let link = checkpoint_link(&self.inner, chat_id).ok_or_else(no_workspace)?;
        on_shadow(&link, chat_id, work).await
    }
}

fn no_workspace() -> ApiError {
    ApiError::bad_request("this chat has no workspace, so no checkpoints")
}

/// Runs `work` on the chat's shadow repository on a blocking thread; its failure is
/// `ERR_CHECKPOINT`.
async fn on_shadow<T: Send + 'static>(
    link: &CheckpointLink,
    chat_id: &ChatId,
    work: impl FnOnce(&ShadowRepo) -> Result<T, CheckpointError> + Send + 'static,
) -> Result<T, ApiError> {
    let (home, workspace, chat) = (link.home.clone(), link.workspace.clone(), chat_id.clone());
    let ran =
        tokio::task::spawn_blocking(move || work(&open_shadow(&home, &chat, &workspace)?)).await;
    match ran {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(checkpoint_error(&error)),
        Err(_) => Err(ApiError::internal("the checkpoint task failed")),
    }
}

/// A refusal the user can act on (preview again; use the checkpoints of this folder) is
/// `ERR_CHECKPOINT_CONFLICT`; anything else `ERR_CHECKPOINT`.
fn checkpoint_error(error: &CheckpointError) -> ApiError {
    let code = match error {
        CheckpointError::PlanChanged | CheckpointError::OtherFolder { .. } => {
            ErrorCode::CheckpointConflict
        }
        _ => ErrorCode::Checkpoint,
    };
    ApiError::new(code, error.to_string())
}

/// The chat's checkpoints link, when it has a workspace to take them of.
fn checkpoint_link(inner: &Inner, chat_id: &ChatId) -> Option<CheckpointLink> {
    CheckpointLink::for_chat(&inner.store, &inner.home, chat_id)
}

/// The files go back, then a checkpoint of the result, then the task list and the entry in
/// one transaction. Returns the entry.
async fn restore(
    inner: &Inner,
    chat_id: &ChatId,
    target: Checkpoint,
    request: RestoreRequest,
) -> Result<Message, ApiError> {
    let link = checkpoint_link(inner, chat_id).ok_or_else(no_workspace)?;
    let latest = inner.store.last_checkpoint(chat_id)?.unwrap_or_else(|| target.clone());
    let (to, since) = (target.commit.clone(), latest.commit);
    let RestoreRequest { digest, overwrite_user_changes: overwrite } = request;
    let restore = move |repo: &ShadowRepo| repo.restore(&to, &since, overwrite, &digest);
    let report = on_shadow(&link, chat_id, restore).await?;
    let n = target.n;
    let tasks = target.tasks.clone();
    if let Err(message) = link.take_restored(chat_id, n, tasks.clone()).await {
        inner.hub.emit(chat_id, Event::Error { code: ErrorCode::Checkpoint, message });
    }
    let restored = Restored {
        checkpoint: n,
        before_task: target.started,
        written: report.written,
        deleted: report.deleted,
        kept: report.kept_user_changes,
    };
    let entry = restore_entry(restored);
    inner.store.restore_tasks(chat_id, &tasks, n, &entry, &now_rfc3339())?;
    Ok(entry)
}

/// The restore as the chat shows it. The model reads Preflight's record of it instead
/// (`llm/record.rs`): the kept files' names are the workspace's, never the user's words.
fn restore_entry(restored: Restored) -> Message {
    let mut content = format!(
        "I restored the workspace to checkpoint {}{}: {} file(s) written back, {} deleted.",
        restored.checkpoint,
        restored.before_task.map(|task| format!(" (before task {task})")).unwrap_or_default(),
        restored.written.len(),
        restored.deleted.len(),
    );
    if !restored.kept.is_empty() {
        content.push_str(&format!(" Kept my own changes to: {}.", restored.kept.join(", ")));
    }
    content.push_str(" The task list is back as it was then.");
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::User {
            content,
            files: Vec::new(),
            attachments: Vec::new(),
            plan_answer: false,
            resume: None,
            stopped: None,
            restored: Some(restored),
            review: None,
            typed: None,
        },
    }
}

pub(super) fn diff_truncated(cut: Truncated) -> DiffTruncated {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    DiffTruncated {
        files_left_out: count(cut.files_left_out),
        patches_left_out: count(cut.patches_left_out),
        bytes_left_out: cut.bytes_left_out,
        budget: cut.budget,
    }
}

pub(super) fn file_change(file: FileDiff) -> FileChange {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    FileChange {
        path: file.path,
        old_path: file.old_path,
        status: file.status.as_str().to_owned(),
        additions: count(file.additions),
        deletions: count(file.deletions),
        binary: file.binary,
        too_large: file.too_large,
        patch: file.patch,
    }
}
