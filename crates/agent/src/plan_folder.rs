//! The writes of a `.dwp` chat's plan folder (DESIGN §6, §12), which the engine's projection
//! makes when it hears a change of the work (`work.rs`): the tracker's list synced, an
//! approved plan change written as its amendment, a task paused (`blocked`) while it waits
//! for the user and unpaused when the work goes on, a failing gate filed.
//!
//! **Invariant:** a plan folder never stops following the chat silently. Each call returns
//! what the chat must be told (a disagreement between README.md and the work, a write that
//! failed), and its caller has it sent as an `error` event; the files never hold back the
//! work.

use preflight_dwp::now_rfc3339;
use preflight_dwp::{
    DwpError, Pause, PauseInput, PlanFolder, PlanFolderWriter, SyncReport, TrackedTask,
};
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ChangeKind, Gate, PlanChange, TaskList};

use crate::dwp_input::{amendment_of, gate_input, tracked_tasks};

/// Where a `.dwp` chat's task list is mirrored: every change becomes a protocol point, and
/// a `done` without a passing gate is refused.
#[derive(Debug, Clone)]
pub struct PlanFolderLink {
    pub files: PlanFolderWriter,
    pub dir: PlanFolder,
}

/// Mirrors the saved list into the plan folder; what the chat must hear, if anything.
pub async fn sync_plan_files(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    next: &TaskList,
) -> Option<String> {
    let tasks: Vec<TrackedTask> = tracked_tasks(next);
    let report = on_folder(link, move |link| link.files.sync(&link.dir, &tasks, &now_rfc3339()));
    match report.await {
        Ok(report) => said(chat_id, report),
        Err(error) => told(chat_id, "could not follow the task list", &error),
    }
}

/// Mirrors a list the workspace was restored to (`cause`, in words): the tasks it has open
/// are open again in the folder first, saying why, and a verdict over the plan withdrawn.
pub async fn sync_restored_plan_files(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    list: &TaskList,
    cause: String,
) -> Option<String> {
    let tasks: Vec<TrackedTask> = tracked_tasks(list);
    let report = on_folder(link, move |link| {
        link.files.sync_restored(&link.dir, &tasks, &cause, &now_rfc3339())
    });
    match report.await {
        Ok(report) => said(chat_id, report),
        Err(error) => told(chat_id, "could not follow the restore", &error),
    }
}

/// An approved plan change as the folder's amendment record, before the list that carries
/// it is synced. `before`: the list the change applied to.
pub async fn amend_plan_files(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    change: &PlanChange,
    before: &TaskList,
) -> Option<String> {
    let amendment = amendment_of(change, before);
    let written =
        on_folder(link, move |link| link.files.amend(&link.dir, amendment, &now_rfc3339()));
    written.await.err().and_then(|error| told(chat_id, "could not record the plan change", &error))
}

/// A drop waiting for the user: its task is `blocked` until the answer.
pub async fn pause_for_change(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    change: &PlanChange,
) -> Option<String> {
    let (ChangeKind::Drop, Some(task)) = (change.request.kind, change.request.task) else {
        return None;
    };
    let pause = PauseInput {
        reason: format!("the executor asks to drop it: {}", change.request.reason),
        needs: format!("the user's answer to plan change {}", change.id),
        pause: Pause::PlanChange { change: change.id.to_string() },
    };
    pause_task(link, chat_id, task, pause).await
}

/// Pauses `task` for the user (`blocked`, with what resumes it).
pub async fn pause_task(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    task: u32,
    pause: PauseInput,
) -> Option<String> {
    let paused =
        on_folder(link, move |link| link.files.pause(&link.dir, task, pause, &now_rfc3339()));
    paused.await.err().and_then(|error| told(chat_id, "could not mark the task blocked", &error))
}

/// The work goes on (`why`, in words): the tasks Preflight paused for what `waits` accepts
/// are unblocked.
pub async fn resume_paused(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    waits: impl Fn(&Pause) -> bool + Send + 'static,
    why: String,
) -> Option<String> {
    let resumed =
        on_folder(link, move |link| link.files.resume(&link.dir, waits, &why, &now_rfc3339()))
            .await;
    match resumed {
        Ok(tasks) if !tasks.is_empty() => {
            tracing::info!(%chat_id, ?tasks, "paused tasks resumed in the plan folder");
            None
        }
        Ok(_) => None,
        Err(error) => told(chat_id, "could not mark the work resumed", &error),
    }
}

/// Files a gate run that did not finish its task as a protocol point of the plan folder.
pub async fn record_failing_gate(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    id: u32,
    gate: &Gate,
) -> Option<String> {
    let gate = gate_input(gate);
    let recorded =
        on_folder(link, move |link| link.files.record_gate(&link.dir, id, gate, &now_rfc3339()));
    recorded
        .await
        .err()
        .and_then(|error| told(chat_id, "could not record the failing check", &error))
}

/// Runs folder work off the async threads.
async fn on_folder<T: Send + 'static>(
    link: &PlanFolderLink,
    work: impl FnOnce(&PlanFolderLink) -> Result<T, DwpError> + Send + 'static,
) -> Result<T, DwpError> {
    let link = link.clone();
    match tokio::task::spawn_blocking(move || work(&link)).await {
        Ok(result) => result,
        Err(_) => Err(DwpError::Io {
            path: Default::default(),
            source: std::io::Error::other("the plan folder's work stopped unexpectedly"),
        }),
    }
}

/// A sync's refusals logged; its disagreements are the chat's to see.
fn said(chat_id: &ChatId, report: SyncReport) -> Option<String> {
    for refused in &report.refused {
        tracing::warn!(%chat_id, %refused, "the plan folder refused a change");
    }
    if report.disagreements.is_empty() {
        return None;
    }
    Some(format!(
        "The plan files and the work disagree: {}. `preflight dwp verify` reports the same.",
        report.disagreements.join("; ")
    ))
}

fn told(chat_id: &ChatId, what: &str, error: &DwpError) -> Option<String> {
    tracing::warn!(%chat_id, %error, "the plan folder {what}");
    Some(format!("The plan folder {what}: {error}"))
}
