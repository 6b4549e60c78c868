//! A chat's plan folder in its workspace (`.dwp/plans/PLAN_<slug>/`, DESIGN §6) as the
//! adapters see it: where it is, beside the task list. What the folder says is kept in step
//! with the work by its projection (`plan_folders.rs`), which listens on the work stream.

use std::path::Path;

use preflight_dwp::{DwpError, PlanFolder, PlanFolderWriter};
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::Task;
use serde::Serialize;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::plan_folders::plan_workspace;

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

/// The folder's view: where it is.
fn folder(workspace: &Path, dir: &PlanFolder) -> PlanFolderLocation {
    let relative = dir.path().strip_prefix(workspace).unwrap_or(dir.path());
    PlanFolderLocation {
        dir: relative.to_string_lossy().into_owned(),
        path: dir.path().to_string_lossy().into_owned(),
    }
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
