//! The `.dwp` plan folder as a projection of the chat's work (DESIGN §6, §12, seed 002): it
//! listens on the work stream (`preflight_agent::WorkStream`) and keeps the chat's folder in
//! step with each change it hears — written when the executor takes up an approved plan,
//! synced with every list, amended by every answered plan change, a task `blocked` while it
//! waits for the user, a checkpoint when a turn ends with work left, the completion written
//! into PROGRESS.md and the folder finalised. The turn runner, the tools and the user's
//! actions never call it: they say what changed.
//!
//! **Invariant:** the folder never holds back the work and never falls behind silently: a
//! write that fails is said in the chat (`ERR_PLAN_FILES`) and the work goes on. A chat that
//! saves no plan files, or has no folder yet, is not touched.

use std::path::PathBuf;
use std::sync::Arc;

use preflight_agent::{
    amend_plan_files, pause_for_change, pause_task, plan_input, record_failing_gate, resume_paused,
    sync_plan_files, sync_restored_plan_files, tracked_tasks, Heard, PlanFolderLink, WorkChange,
    WorkListener,
};
use preflight_dwp::now_rfc3339;
use preflight_dwp::{Author, Pause, PauseInput, PlanFolder, PlanFolderWriter, MAX_NOTE_CHARS};
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{
    ChangeStatus, Completion, ExecutorStop, PlanChange, TaskList, TaskStatus,
};
use preflight_store::Store;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::finalize::finalize_plan_files;
use crate::lifecycle::gates::Sandboxes;
use crate::lifecycle::progress::completion_lines;

/// What resumes a task paused by a stop: said in `blocked.needs`.
const STOP_NEEDS: &str = "Continue in the chat, or a new message";
/// What resumes a task the user took off the list by clearing it.
const CLEARED_NEEDS: &str = "A new plan in the chat, or the task finished by hand";

/// The chats' plan folders, kept in step with their work.
pub(super) struct PlanFolders {
    store: Arc<Store>,
    /// The writer as this engine's executor writes (its model in `updated_by`).
    files: PlanFolderWriter,
    /// The chats' code sandboxes: the finaliser runs completed tasks' gates again there.
    sandboxes: Sandboxes,
}

impl PlanFolders {
    /// `model`: the executor's, named in the files' `updated_by`.
    pub(super) fn new(store: Arc<Store>, model: Option<&str>, sandboxes: Sandboxes) -> Self {
        let files = PlanFolderWriter::new(Author::preflight(model));
        PlanFolders { store, files, sandboxes }
    }

    /// The chat's folder, when it saves one and has one.
    async fn link(&self, chat: &Chat) -> Option<PlanFolderLink> {
        let dir = plan_folder_of(chat).await?;
        Some(PlanFolderLink { files: self.files.clone(), dir })
    }
}

#[async_trait::async_trait]
impl WorkListener for PlanFolders {
    async fn heard(
        &self,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        cancel: &CancellationToken,
    ) -> Heard {
        let Ok(chat) = self.store.get_chat(chat_id) else { return Heard::default() };
        if let WorkChange::Executing { plan, list, why } = change {
            return self.executing(&chat, plan, list, why).await;
        }
        let Some(link) = self.link(&chat).await else { return Heard::default() };
        match change {
            WorkChange::Executing { .. } => Heard::default(),
            WorkChange::Listed { list } => Heard::told(sync_plan_files(&link, chat_id, list).await),
            WorkChange::Restored { checkpoint, list } => {
                let cause = format!(
                    "the user restored the workspace to checkpoint {checkpoint}, which undid this work"
                );
                Heard::told(sync_restored_plan_files(&link, chat_id, list, cause).await)
            }
            WorkChange::GateFailed { task, gate } => {
                Heard::told(record_failing_gate(&link, chat_id, task, gate).await)
            }
            WorkChange::ChangeAsked { change } => {
                Heard::told(pause_for_change(&link, chat_id, change).await)
            }
            WorkChange::ChangeAnswered { change, before, list } => {
                answered(&link, chat_id, change, before, list).await
            }
            WorkChange::TurnEnded { why } => self.checkpoint_unfinished(&link, chat_id, why).await,
            WorkChange::Stopped { stop } => pause_for_stop(&link, chat_id, stop).await,
            WorkChange::Cleared { left } => cleared(&link, chat_id, left).await,
            WorkChange::Superseded { why } => superseded(&link, chat_id, why).await,
            WorkChange::Completed { list, completion } => {
                let runner = self.sandboxes.gates(chat_id);
                let mut heard = record_completion(&link, chat_id, list, completion).await;
                let finalized = finalize_plan_files(runner, chat_id, &link, &[], cancel).await;
                heard.events.extend(finalized.events);
                heard.finalization = finalized.finalization;
                heard
            }
        }
    }
}

impl PlanFolders {
    /// The executor takes up the approved plan: its folder found again, or written now for
    /// a plan just approved; then the tasks a stop paused go on (while the list has work:
    /// a cleared list resumes nothing).
    async fn executing(
        &self,
        chat: &Chat,
        plan: &PlanDocument,
        list: &TaskList,
        why: &str,
    ) -> Heard {
        let Some(workspace) = plan_workspace(chat) else { return Heard::default() };
        let (chat_id, writer) = (chat.id.clone(), self.files.clone());
        let (plan, list) = (plan.clone(), list.clone());
        let request = self.first_request(&chat.id);
        let work_left = list.has_work_left();
        let found = tokio::task::spawn_blocking(move || {
            match PlanFolderWriter::locate(&workspace, chat_id.as_str())? {
                Some(dir) => Ok(Some(dir)),
                None if list.has_work_left() => {
                    let (mut plan, list) = (plan_input(&plan), tracked_tasks(&list));
                    // PROMPTS.md: the request the plan was made for, as the user typed it.
                    plan.prompt = request;
                    writer
                        .materialize(&workspace, &plan, &list, chat_id.as_str(), &now_rfc3339())
                        .map(Some)
                }
                None => Ok(None),
            }
        })
        .await;
        let dir = match found {
            Ok(Ok(Some(dir))) => dir,
            Ok(Ok(None)) | Err(_) => return Heard::default(),
            Ok(Err(error)) => {
                let message = format!("The plan could not be written to the workspace: {error}");
                return Heard::told(Some(message));
            }
        };
        if !work_left {
            return Heard::default();
        }
        let link = PlanFolderLink { files: self.files.clone(), dir };
        let continues = |pause: &Pause| *pause == Pause::Continue;
        Heard::told(resume_paused(&link, &chat.id, continues, why.to_owned()).await)
    }

    /// The chat's first user message: the request the plan answers.
    fn first_request(&self, chat_id: &ChatId) -> Option<String> {
        let messages = self.store.messages(chat_id).ok()?;
        messages.into_iter().find_map(|message| match message.body {
            preflight_protocol::chat::MessageBody::User { content, .. } => Some(content),
            _ => None,
        })
    }

    /// At the end of an executor turn that left work in the plan: a checkpoint in the task
    /// in progress, so that whoever resumes (this chat later, or another agent reading the
    /// files) knows where the work stopped and why.
    async fn checkpoint_unfinished(
        &self,
        link: &PlanFolderLink,
        chat_id: &ChatId,
        why: &str,
    ) -> Heard {
        let Ok(list) = self.store.task_list(chat_id) else { return Heard::default() };
        let Some(active) =
            list.tasks.iter().find(|task| task.status == TaskStatus::Active).cloned()
        else {
            return Heard::default();
        };
        let left = list
            .tasks
            .iter()
            .filter(|task| matches!(task.status, TaskStatus::Pending | TaskStatus::Active))
            .count();
        let tail = format!(" with {left} of {} tasks left", list.tasks.len());
        let room = MAX_NOTE_CHARS.saturating_sub(tail.chars().count() + "the turn ended ()".len());
        let note = format!("the turn ended ({}){tail}", cut(why, room));
        let (writer, task) = (link.clone(), active.id);
        let written = tokio::task::spawn_blocking(move || {
            writer.files.checkpoint(&writer.dir, &active.title, &note, &now_rfc3339())
        })
        .await;
        match written {
            Ok(Ok(true)) => {
                tracing::info!(%chat_id, task, "checkpoint written to the plan folder");
                Heard::default()
            }
            Ok(Ok(false)) | Err(_) => Heard::default(),
            Ok(Err(error)) => {
                tracing::warn!(%chat_id, %error, "the checkpoint could not be written");
                let message = format!("The plan folder's checkpoint could not be written: {error}");
                Heard::told(Some(message))
            }
        }
    }
}

/// An answered plan change: an approved one written as its amendment, a rejected one's
/// waiting task unpaused; then the list synced.
async fn answered(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    change: &PlanChange,
    before: &TaskList,
    list: &TaskList,
) -> Heard {
    let said = match change.status {
        ChangeStatus::Approved => amend_plan_files(link, chat_id, change, before).await,
        ChangeStatus::Rejected | ChangeStatus::Pending => {
            let id = change.id.to_string();
            let waited =
                move |pause: &Pause| matches!(pause, Pause::PlanChange { change } if *change == id);
            let why = format!("the user kept the task: plan change {} rejected", change.id);
            resume_paused(link, chat_id, waited, why).await
        }
    };
    let mut heard = Heard::told(said);
    heard.tell(sync_plan_files(link, chat_id, list).await);
    heard
}

/// A turn that stopped with work left (and does not go on by itself): the task it stopped
/// on — the one whose check failed, else the active one, else the first open — is `blocked`
/// in the plan folder with the stop's reason, until the work goes on (DESIGN §6).
async fn pause_for_stop(link: &PlanFolderLink, chat_id: &ChatId, stop: &ExecutorStop) -> Heard {
    let active = stop.tasks_left.iter().find(|task| task.status == TaskStatus::Active);
    let task = stop
        .gate
        .as_ref()
        .map(|gate| gate.task)
        .or(active.map(|task| task.id))
        .or(stop.tasks_left.first().map(|task| task.id));
    let Some(task) = task else { return Heard::default() };
    let reason = cut(&format!("the executor stopped: {}", stop.text), MAX_NOTE_CHARS);
    let pause = PauseInput { reason, needs: STOP_NEEDS.to_owned(), pause: Pause::Continue };
    Heard::told(pause_task(link, chat_id, task, pause).await)
}

/// The user cleared the list: each task it left open is `blocked` in the folder, saying so,
/// rather than shown in progress while nothing works on it.
async fn cleared(link: &PlanFolderLink, chat_id: &ChatId, left: &TaskList) -> Heard {
    let mut heard = Heard::default();
    let open = left
        .tasks
        .iter()
        .filter(|task| matches!(task.status, TaskStatus::Pending | TaskStatus::Active));
    for task in open {
        let pause = PauseInput {
            reason: "the user cleared the task list in the chat".to_owned(),
            needs: CLEARED_NEEDS.to_owned(),
            pause: Pause::Continue,
        };
        heard.tell(pause_task(link, chat_id, task.id, pause).await);
    }
    heard
}

/// The chat set its plan aside: the folder records why and stops being the chat's current
/// one, so the next approved plan is written to a folder of its own.
async fn superseded(link: &PlanFolderLink, chat_id: &ChatId, why: &str) -> Heard {
    let (writer, why) = (link.clone(), why.to_owned());
    let written = tokio::task::spawn_blocking(move || {
        writer.files.supersede(&writer.dir, &why, &now_rfc3339())
    })
    .await;
    match written {
        Ok(Ok(_)) | Err(_) => Heard::default(),
        Ok(Err(error)) => {
            tracing::warn!(%chat_id, %error, "the plan folder could not be set aside");
            Heard::told(Some(format!(
                "The plan folder could not record that its plan was set aside: {error}"
            )))
        }
    }
}

/// The completion in the folder: the list synced, then the record written into PROGRESS.md.
async fn record_completion(
    link: &PlanFolderLink,
    chat_id: &ChatId,
    list: &TaskList,
    completion: &Completion,
) -> Heard {
    let mut heard = Heard::told(sync_plan_files(link, chat_id, list).await);
    let (lines, writer) = (completion_lines(completion), link.clone());
    let written = tokio::task::spawn_blocking(move || {
        writer.files.record_completion(&writer.dir, &lines, &now_rfc3339())
    })
    .await;
    if let Ok(Err(error)) = written {
        tracing::warn!(%chat_id, %error, "the completion could not be written to the plan folder");
        heard.tell(Some(format!("The plan folder could not record the completion: {error}")));
    }
    heard
}

/// The workspace whose `.dwp/plans` holds the chat's plan, when the chat saves one there.
pub(super) fn plan_workspace(chat: &Chat) -> Option<PathBuf> {
    chat.workspace.as_deref().filter(|_| chat.save_plans).map(PathBuf::from)
}

/// The chat's plan folder, when it saves one and its workspace has one (read only).
pub(super) async fn plan_folder_of(chat: &Chat) -> Option<PlanFolder> {
    let workspace = plan_workspace(chat)?;
    let chat_id = chat.id.clone();
    let located =
        tokio::task::spawn_blocking(move || PlanFolderWriter::locate(&workspace, chat_id.as_str()))
            .await;
    match located {
        Ok(Ok(dir)) => dir,
        Ok(Err(error)) => {
            tracing::warn!(chat_id = %chat.id, %error, "the plan folder cannot be found");
            None
        }
        Err(_) => None,
    }
}

/// `text` in at most `room` characters, an ellipsis marking a cut.
fn cut(text: &str, room: usize) -> String {
    match text.chars().count() > room {
        true => text.chars().take(room.saturating_sub(1)).chain(['…']).collect(),
        false => text.to_owned(),
    }
}
