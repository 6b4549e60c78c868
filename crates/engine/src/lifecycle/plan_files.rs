//! A chat's plan folder in its workspace (`.dwp/plans/PLAN_<slug>/`, DESIGN §6) as the
//! adapters see it: where it is, which dropped tasks wait for the user, and the user's
//! confirmation of a drop (the one way a task becomes `skipped`).

use std::path::{Path, PathBuf};

use preflight_dwp::{
    read_state, Author, DwpError, PlanDir, PlanFiles, Status, TaskEntry, DROP_NEEDS, MAX_NOTE_CHARS,
};
use serde::Serialize;

use crate::chat::Chat;
use crate::events::Event;
use crate::ids::{ChatId, TaskId};
use crate::now_rfc3339;
use crate::tasks::{Task, TaskStatus};

use super::{ApiError, Engine, Inner};

/// `files` of `GET /v1/chats/{id}/plan`: the chat's plan folder, when it writes one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanFolder {
    /// The folder relative to the workspace, e.g. `.dwp/plans/PLAN_add-login`.
    pub dir: String,
    /// The same folder as an absolute path.
    pub path: String,
    /// Tasks the executor dropped that stay `blocked` in `state.json` until the user
    /// confirms the drop (then `skipped`).
    pub awaiting_drop: Vec<DroppedTask>,
}

/// A task of the plan folder that the executor dropped, waiting for the user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct DroppedTask {
    pub id: TaskId,
    pub title: String,
    /// The executor's reason (its outcome for the drop).
    pub reason: String,
}

/// `GET /v1/chats/{id}/plan`: the task list, and the plan folder that mirrors it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskPanel {
    pub tasks: Vec<Task>,
    pub files: Option<PlanFolder>,
}

impl Engine {
    /// The task list with the chat's plan folder (`files` is `null` when the chat writes
    /// none, or its workspace has none for this chat yet). A folder that cannot be read (a
    /// hand-broken `state.json`) leaves `files` out rather than the task list: the
    /// verifier is the tool that says what is wrong with it.
    pub async fn task_panel(&self, chat_id: &ChatId) -> Result<TaskPanel, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let tasks = self.inner.store.task_list(chat_id)?.tasks;
        let files = match folder_of(&chat).await {
            Ok(files) => files,
            Err(error) if error.code == super::ErrorCode::Internal => {
                tracing::warn!(%chat_id, message = %error.message, "the plan folder cannot be read");
                None
            }
            Err(error) => return Err(error),
        };
        Ok(TaskPanel { tasks, files })
    }

    /// The chat's plan folder, found again in its workspace.
    pub async fn plan_folder(&self, chat_id: &ChatId) -> Result<Option<PlanFolder>, ApiError> {
        folder_of(&self.inner.store.get_chat(chat_id)?).await
    }

    /// The user confirms that task `task_id`, which the executor dropped, leaves the plan:
    /// `skipped` in `state.json`, the reason being the executor's. Refused (and nothing
    /// written) for a task that does not wait for that confirmation, and in a chat without
    /// a plan folder. The plan folder decides, not the task list, which a finished turn
    /// closes.
    pub async fn confirm_drop(
        &self,
        chat_id: &ChatId,
        task_id: TaskId,
    ) -> Result<PlanFolder, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let Some(workspace) = plan_workspace(&chat) else {
            return Err(ApiError::bad_request("this chat does not save its plan to the workspace"));
        };
        let files = plan_files(&self.inner);
        blocking(move || {
            let dir = PlanFiles::locate(&workspace, chat.id.as_str())
                .map_err(files_error)?
                .ok_or_else(|| ApiError::bad_request("this chat has no plan folder in its workspace"))?;
            let state = read_state(&dir).map_err(files_error)?.state;
            let task = state.task(task_id.get()).ok_or_else(|| ApiError::bad_request(format!("the plan has no task {task_id}")))?;
            let reason = dropped_by_executor(task).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "task {task_id} is {}, not dropped by the executor: only such a drop can be confirmed",
                    task.status.as_str()
                ))
            })?;
            files.confirm_drop(&dir, task_id.get(), reason, &now_rfc3339()).map_err(files_error)?;
            folder(&workspace, &dir).map_err(files_error)
        })
        .await
    }
}

/// At the end of an executor turn that left work in the plan: a checkpoint in the task in
/// progress, so that whoever resumes (this chat later, or another agent reading the
/// files) knows where the work stopped and why. Failures are logged, never fatal.
pub(super) async fn checkpoint_unfinished(inner: &Inner, chat_id: &ChatId, why: &str) {
    let (Ok(chat), Ok(list)) = (inner.store.get_chat(chat_id), inner.store.task_list(chat_id))
    else {
        return;
    };
    let Some(workspace) = plan_workspace(&chat) else {
        return;
    };
    let Some(active) = list.tasks.iter().find(|task| task.status == TaskStatus::Active).cloned()
    else {
        return;
    };
    let left = list
        .tasks
        .iter()
        .filter(|task| matches!(task.status, TaskStatus::Pending | TaskStatus::Active))
        .count();
    let tail = format!(" with {left} of {} tasks left", list.tasks.len());
    let room = MAX_NOTE_CHARS.saturating_sub(tail.chars().count() + "the turn ended ()".len());
    let why: String = match why.chars().count() > room {
        true => why.chars().take(room.saturating_sub(1)).chain(['…']).collect(),
        false => why.to_owned(),
    };
    let note = format!("the turn ended ({why}){tail}");
    let (files, task, id) = (plan_files(inner), active.id, chat.id.clone());
    let written = blocking(move || {
        let Some(dir) = PlanFiles::locate(&workspace, id.as_str()).map_err(files_error)? else {
            return Ok(false);
        };
        files.checkpoint(&dir, &active.title, &note, &now_rfc3339()).map_err(files_error)
    })
    .await;
    match written {
        Ok(true) => {
            tracing::info!(chat_id = %chat.id, task, "checkpoint written to the plan folder")
        }
        Ok(false) => {}
        Err(error) => {
            tracing::warn!(chat_id = %chat.id, message = %error.message, "the checkpoint could not be written");
            let message =
                format!("The plan folder's checkpoint could not be written: {}", error.message);
            inner.hub.emit(&chat.id, Event::Error { code: super::ErrorCode::PlanFiles, message });
        }
    }
}

/// The folder's view: paths and the drops awaiting the user.
fn folder(workspace: &Path, dir: &PlanDir) -> Result<PlanFolder, DwpError> {
    let state = read_state(dir)?.state;
    let awaiting_drop = state
        .tasks
        .iter()
        .filter_map(|task| {
            let reason = dropped_by_executor(task)?.to_owned();
            Some(DroppedTask { id: TaskId::new(task.id), title: task.title.clone(), reason })
        })
        .collect();
    let relative = dir.path().strip_prefix(workspace).unwrap_or(dir.path());
    Ok(PlanFolder {
        dir: relative.to_string_lossy().into_owned(),
        path: dir.path().to_string_lossy().into_owned(),
        awaiting_drop,
    })
}

/// The executor's reason for a drop that waits for the user's confirmation.
fn dropped_by_executor(task: &TaskEntry) -> Option<&str> {
    let block = task
        .block
        .as_ref()
        .filter(|block| task.status == Status::Blocked && block.needs == DROP_NEEDS)?;
    Some(&block.reason)
}

/// The workspace whose `.dwp/plans` holds the chat's plan, when the chat saves one there.
pub(super) fn plan_workspace(chat: &Chat) -> Option<PathBuf> {
    chat.workspace.as_deref().filter(|_| chat.save_plans).map(PathBuf::from)
}

/// The plan files as this engine's executor writes them (its model in `updated_by`).
pub(super) fn plan_files(inner: &Inner) -> PlanFiles {
    let model = inner.executor.as_ref().ok().map(|provider| provider.model());
    PlanFiles::new(Author::preflight(model))
}

/// The chat's plan folder, when it has one.
async fn folder_of(chat: &Chat) -> Result<Option<PlanFolder>, ApiError> {
    let Some(workspace) = plan_workspace(chat) else {
        return Ok(None);
    };
    let chat_id = chat.id.clone();
    blocking(move || {
        match PlanFiles::locate(&workspace, chat_id.as_str()).map_err(files_error)? {
            Some(dir) => folder(&workspace, &dir).map(Some).map_err(files_error),
            None => Ok(None),
        }
    })
    .await
}

/// A refusal of the updater is the caller's `ERR_BAD_REQUEST`; anything else (I/O, a
/// malformed file) is `ERR_INTERNAL`.
fn files_error(error: DwpError) -> ApiError {
    match error {
        DwpError::Refused(refusal) => ApiError::bad_request(refusal.to_string()),
        error => ApiError::internal(format!("the plan folder: {error}")),
    }
}

/// Runs file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|_| Err(ApiError::internal("the plan folder's work stopped unexpectedly")))
}
