//! A chat's plan folder in its workspace (`.dwp/plans/PLAN_<slug>/`, DESIGN §6) as the
//! adapters see it: where it is, and the checkpoint a paused turn leaves in it. A plan
//! step leaves the folder (`skipped`) only through an approved plan change (DESIGN §12).

use std::path::{Path, PathBuf};

use preflight_agent::events::Event;
use preflight_agent::{pause_task, PlanFolderLink};
use preflight_dwp::now_rfc3339;
use preflight_dwp::{
    Author, DwpError, Pause, PauseInput, PlanFolder, PlanFolderWriter, MAX_NOTE_CHARS,
};
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ExecutorStop, Task, TaskStatus};
use serde::Serialize;

use crate::lifecycle::engine::{Engine, Inner};
use crate::lifecycle::error::{ApiError, ErrorCode};

/// `files` of `GET /v1/chats/{id}/plan`: the chat's plan folder, when it writes one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanFolderLocation {
    /// The folder relative to the workspace, e.g. `.dwp/plans/PLAN_add-login`.
    pub dir: String,
    /// The same folder as an absolute path.
    pub path: String,
}

/// `GET /v1/chats/{id}/plan`: the task list, and the plan folder that mirrors it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct TaskPanel {
    pub tasks: Vec<Task>,
    pub files: Option<PlanFolderLocation>,
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
            Err(error) if error.code == ErrorCode::Internal => {
                tracing::warn!(%chat_id, message = %error.message, "the plan folder cannot be read");
                None
            }
            Err(error) => return Err(error),
        };
        Ok(TaskPanel { tasks, files })
    }

    /// The chat's plan folder, found again in its workspace.
    pub async fn plan_folder(
        &self,
        chat_id: &ChatId,
    ) -> Result<Option<PlanFolderLocation>, ApiError> {
        folder_of(&self.inner.store.get_chat(chat_id)?).await
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
        let Some(dir) = PlanFolderWriter::locate(&workspace, id.as_str()).map_err(files_error)?
        else {
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
            inner.hub.emit(&chat.id, Event::Error { code: ErrorCode::PlanFiles, message });
        }
    }
}

/// What resumes a task paused by a stop: said in `blocked.needs`.
const STOP_NEEDS: &str = "Continue in the chat, or a new message";

/// A turn that stopped with work left (and does not go on by itself): the task it stopped
/// on — the one whose check failed, else the active one, else the first open — is `blocked`
/// in the plan folder with the stop's reason, until the work goes on (DESIGN §6).
pub(super) async fn pause_for_stop(inner: &Inner, chat_id: &ChatId, stop: &ExecutorStop) {
    let Some(link) = plan_files_link(inner, chat_id).await else { return };
    let active = stop.tasks_left.iter().find(|task| task.status == TaskStatus::Active);
    let task = stop
        .gate
        .as_ref()
        .map(|gate| gate.task)
        .or(active.map(|task| task.id))
        .or(stop.tasks_left.first().map(|task| task.id));
    let Some(task) = task else { return };
    let reason = format!("the executor stopped: {}", stop.text);
    let reason: String = match reason.chars().count() > MAX_NOTE_CHARS {
        true => reason.chars().take(MAX_NOTE_CHARS - 1).chain(['…']).collect(),
        false => reason,
    };
    let pause = PauseInput { reason, needs: STOP_NEEDS.to_owned(), pause: Pause::Continue };
    tell_chat(inner, chat_id, pause_task(&link, chat_id, task, pause).await);
}

/// What the chat must hear about its plan folder, sent as an `error` event.
pub(super) fn tell_chat(inner: &Inner, chat_id: &ChatId, message: Option<String>) {
    if let Some(message) = message {
        inner.hub.emit(chat_id, Event::Error { code: ErrorCode::PlanFiles, message });
    }
}

/// The folder's view: where it is.
fn folder(workspace: &Path, dir: &PlanFolder) -> PlanFolderLocation {
    let relative = dir.path().strip_prefix(workspace).unwrap_or(dir.path());
    PlanFolderLocation {
        dir: relative.to_string_lossy().into_owned(),
        path: dir.path().to_string_lossy().into_owned(),
    }
}

/// The chat's plan folder as `turn_plan` writes it, when the chat has one.
pub(super) async fn plan_files_link(inner: &Inner, chat_id: &ChatId) -> Option<PlanFolderLink> {
    let chat = inner.store.get_chat(chat_id).ok()?;
    let workspace = plan_workspace(&chat)?;
    let files = plan_files(inner);
    let located =
        tokio::task::spawn_blocking(move || PlanFolderWriter::locate(&workspace, chat.id.as_str()))
            .await;
    match located {
        Ok(Ok(Some(dir))) => Some(PlanFolderLink { files, dir }),
        Ok(Ok(None)) => None,
        Ok(Err(error)) => {
            tracing::warn!(%chat_id, %error, "the plan folder cannot be found");
            None
        }
        Err(_) => None,
    }
}

/// The workspace whose `.dwp/plans` holds the chat's plan, when the chat saves one there.
pub(super) fn plan_workspace(chat: &Chat) -> Option<PathBuf> {
    chat.workspace.as_deref().filter(|_| chat.save_plans).map(PathBuf::from)
}

/// The plan files as this engine's executor writes them (its model in `updated_by`).
pub(super) fn plan_files(inner: &Inner) -> PlanFolderWriter {
    let model = inner.executor.as_ref().ok().map(|provider| provider.model());
    PlanFolderWriter::new(Author::preflight(model))
}

/// The chat's plan folder, when it has one.
async fn folder_of(chat: &Chat) -> Result<Option<PlanFolderLocation>, ApiError> {
    let Some(workspace) = plan_workspace(chat) else {
        return Ok(None);
    };
    let chat_id = chat.id.clone();
    blocking(move || {
        match PlanFolderWriter::locate(&workspace, chat_id.as_str()).map_err(files_error)? {
            Some(dir) => Ok(Some(folder(&workspace, &dir))),
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
