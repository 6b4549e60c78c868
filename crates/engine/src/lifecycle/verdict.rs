//! The user's answers to a plan that finished but was not verified (issue 49, DESIGN §12):
//! run the checks again, or accept it as is. Continue (`continue_work.rs`) is the third.
//!
//! **Invariant:** a verdict changes only by the finaliser or by the user's explicit,
//! recorded choice. Each action refuses (and changes nothing) unless the chat's completion
//! record holds an UNVERIFIED verdict the user has not accepted; the folder is written
//! before the store, so a folder that cannot be written leaves both as they were.

use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::PlanFolderLink;
use preflight_dwp::{now_rfc3339, read_state, Author, PlanFolderWriter};
use preflight_protocol::chat::Chat;
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{Completion, TaskList, TaskStatus};

use crate::lifecycle::completion::reopen;
use crate::lifecycle::engine::{Engine, Inner};
use crate::lifecycle::error::ApiError;
use crate::lifecycle::finalize::finalize_plan_files;
use crate::lifecycle::hub::{TurnGuard, TurnKind};
use crate::lifecycle::plan_folders::plan_folder_of;
use crate::lifecycle::view::ChatView;

/// Who accepts, as the plan folder records it.
const THE_USER: &str = "The user";

impl Engine {
    /// Runs the finished plan's checks again in the chat's sandbox and finalises its folder
    /// anew; 202, the verdict follows as a `completion` event (and, when a check fails now,
    /// its task open again in the list). Stop ends the reruns.
    pub async fn verify_plan(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        let (chat, completion, guard) = {
            let _serial = self.serialize();
            let chat = self.inner.store.get_chat(chat_id)?;
            if self.facts(&chat)?.running.is_some() {
                return Err(ApiError::turn_active());
            }
            let completion = self.waiting_completion(chat_id)?;
            (chat, completion, self.claim_turn(chat_id, TurnKind::Executor)?)
        };
        let link = folder_link(&chat).await?;
        let inner = Arc::clone(&self.inner);
        let chat = chat_id.clone();
        let tasks = inner.tasks.clone();
        tasks.spawn(async move { verify_again(&inner, &chat, completion, link, guard).await });
        self.chat_view(chat_id)
    }

    /// The user accepts the unverified plan as it is: recorded in its folder (PROGRESS.md,
    /// `state.json`), then on the completion record; the list closes.
    pub async fn accept_plan(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        let _guard = {
            let _serial = self.serialize();
            let chat = self.inner.store.get_chat(chat_id)?;
            if self.facts(&chat)?.running.is_some() {
                return Err(ApiError::turn_active());
            }
            self.claim_turn(chat_id, TurnKind::Executor)?
        };
        let mut completion = self.waiting_completion(chat_id)?;
        let chat = self.inner.store.get_chat(chat_id)?;
        let link = folder_link(&chat).await?;
        let now = now_rfc3339();
        let at = now.clone();
        let accepted =
            tokio::task::spawn_blocking(move || link.files.accept(&link.dir, THE_USER, &at)).await;
        match accepted {
            Ok(Ok(())) => {}
            Ok(Err(error)) => return Err(folder_error(&error.to_string())),
            Err(_) => return Err(folder_error("the write stopped unexpectedly")),
        }
        if let Some(note) = completion.finalization.as_mut() {
            note.accepted_at = Some(now);
        }
        self.inner.store.complete_plan(chat_id, &completion, &TaskList::empty())?;
        self.emit(chat_id, Event::Completion { completion });
        self.emit(chat_id, Event::TaskList { tasks: Vec::new() });
        self.chat_view(chat_id)
    }

    /// The chat's completion record when its verdict waits for the user; else 409.
    fn waiting_completion(&self, chat_id: &ChatId) -> Result<Completion, ApiError> {
        let completion = self.inner.store.state(chat_id)?.completion;
        let waits = completion.as_ref().and_then(|c| c.finalization.as_ref());
        match (completion.clone(), waits.is_some_and(|note| note.waits_for_the_user())) {
            (Some(completion), true) => Ok(completion),
            _ => Err(ApiError::new(
                ErrorCode::NothingLeft,
                "this chat has no finished plan waiting for a verdict: nothing to check again or accept",
            )),
        }
    }
}

/// The finaliser again, then the record and the list as its verdict says.
async fn verify_again(
    inner: &Inner,
    chat_id: &ChatId,
    mut completion: Completion,
    link: PlanFolderLink,
    guard: TurnGuard,
) {
    let runner = inner.sandboxes.gates(chat_id);
    let before = completion.finalization.as_ref().map(|note| note.reopened.clone());
    let before = before.unwrap_or_default();
    let heard = finalize_plan_files(runner, chat_id, &link, &before, &guard.cancel).await;
    for event in heard.events {
        inner.hub.emit(chat_id, event);
    }
    let Some(mut note) = heard.finalization else { return };
    // Tasks open again before stay so unless their check passed now; new ones join them.
    let open = open_tasks(&link).await;
    let (still, passed): (Vec<u32>, Vec<u32>) = before.iter().partition(|id| open.contains(id));
    let newly = note.reopened.clone();
    note.reopened = still.iter().chain(&newly).copied().collect();
    note.reopened.sort_unstable();
    note.reopened.dedup();
    let list = match inner.store.task_list(chat_id) {
        Ok(list) if !list.tasks.is_empty() => list,
        _ => TaskList {
            tasks: completion.tasks.clone(),
            next_id: completion.tasks.iter().map(|task| task.id).max().unwrap_or(0) + 1,
            planned: completion.planned.iter().map(|step| step.id).collect(),
            history: Vec::new(),
        },
    };
    completion.finalization = Some(note);
    let now = now_rfc3339();
    let list = finished_again(&list, &passed, &now);
    let list = match newly.is_empty() {
        true => list,
        false => reopen(&list, &newly, &completion, &now),
    };
    let left = if list.has_work_left() { list } else { TaskList::empty() };
    if let Err(error) = inner.store.complete_plan(chat_id, &completion, &left) {
        tracing::error!(%chat_id, %error, "the new verdict could not be stored");
        return;
    }
    inner.hub.emit(chat_id, Event::Completion { completion });
    inner.hub.emit(chat_id, Event::TaskList { tasks: left.tasks });
    drop(guard);
}

/// The tasks `state.json` has open (neither completed nor skipped).
async fn open_tasks(link: &PlanFolderLink) -> Vec<u32> {
    let dir = link.dir.clone();
    let read = tokio::task::spawn_blocking(move || read_state(&dir)).await;
    let Ok(Ok(snapshot)) = read else { return Vec::new() };
    snapshot.state.open_tasks()
}

/// The list with `tasks` done again: their check, run again now, passed.
fn finished_again(list: &TaskList, tasks: &[u32], now: &str) -> TaskList {
    let mut next = list.clone();
    for task in next.tasks.iter_mut().filter(|task| tasks.contains(&task.id)) {
        task.status = TaskStatus::Done;
        task.outcome = Some("its check passed when run again".to_owned());
    }
    next.stamped(list, now)
}

/// The chat's plan folder, as the finaliser writes it; 409 when it has none.
async fn folder_link(chat: &Chat) -> Result<PlanFolderLink, ApiError> {
    let Some(dir) = plan_folder_of(chat).await else {
        return Err(folder_error("the chat's plan folder is not in its workspace any more"));
    };
    Ok(PlanFolderLink { files: PlanFolderWriter::new(Author::preflight(None)), dir })
}

fn folder_error(why: &str) -> ApiError {
    ApiError::new(ErrorCode::PlanFiles, format!("The plan folder could not be written: {why}"))
}
