//! The completion record of a plan carried out (DESIGN §12): when no step of the chat's
//! plan is left, the record is computed, said on the work stream (the plan folder writes it
//! into PROGRESS.md and finalises, and its verdict comes back), stored, and the list closed.
//!
//! The verdict decides what stays open: tasks whose check failed when run again are open
//! again in the list (the completion record, UNVERIFIED, says why); otherwise the list closes.
//!
//! **Invariant:** completion computes and records; it starts no turn, and of the events it
//! sends only what the work stream's listeners said. Its caller (the turn runner, or the
//! answer to a plan change) sends the events it returns and decides what runs next.

use preflight_agent::events::Event;
use preflight_agent::WorkChange;
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::MessageBody;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{Completion, TaskList, TaskStatus};
use tokio_util::sync::CancellationToken;

use crate::lifecycle::engine::Inner;

/// When the chat's list carries out a plan and no step of it is left: the completion
/// record stored (with `summary`, else the executor's last answer) and the list closed.
/// Returns the events to send (none when the plan is not finished, or on a store failure,
/// which is logged: the list then stays, and the next turn's end tries again).
/// `cancel` (the turn's) stops the gates the finaliser runs again.
pub(super) async fn complete_if_done(
    inner: &Inner,
    chat_id: &ChatId,
    summary: Option<&str>,
    cancel: &CancellationToken,
) -> Vec<Event> {
    let Ok(list) = inner.store.task_list(chat_id) else { return Vec::new() };
    if !list.plan_finished() {
        return Vec::new();
    }
    let summary = match summary {
        Some(text) if !text.trim().is_empty() => text.to_owned(),
        _ => last_answer(inner, chat_id),
    };
    let mut completion = list.completion(&summary, &now_rfc3339());
    completion.stops_and_continues = inner.store.stop_log(chat_id).unwrap_or_default().events;
    // The files first: the stored record then carries the finaliser's verdict.
    let completed = WorkChange::Completed { list: &list, completion: &completion };
    completion.finalization = inner.tell_work(chat_id, completed, cancel).await;
    let reopened = completion.finalization.as_ref().map(|note| note.reopened.as_slice());
    let left = match reopened.filter(|tasks| !tasks.is_empty()) {
        Some(tasks) => reopen(&list, tasks, &completion, &now_rfc3339()),
        None => TaskList::empty(),
    };
    if let Err(error) = inner.store.complete_plan(chat_id, &completion, &left) {
        tracing::error!(%chat_id, %error, "the completion record could not be stored");
        return Vec::new();
    }
    vec![Event::Completion { completion }, Event::TaskList { tasks: left.tasks }]
}

/// The list with the tasks whose check failed when the finaliser ran it again open again
/// (pending, saying why): their completion is withdrawn, and Continue works on them.
pub(super) fn reopen(
    list: &TaskList,
    tasks: &[u32],
    completion: &Completion,
    now: &str,
) -> TaskList {
    let mut next = list.clone();
    let reasons = completion.finalization.as_ref().map(|note| note.reasons.as_slice());
    for task in next.tasks.iter_mut().filter(|task| tasks.contains(&task.id)) {
        let named = format!("task {} “", task.id);
        let why = reasons.unwrap_or_default().iter().find(|reason| reason.starts_with(&named));
        task.status = TaskStatus::Pending;
        task.outcome = why.map(|why| why.replacen(&format!("{named}{}”: ", task.title), "", 1));
        // The turn's passing run is no evidence any more; the reason says what failed.
        task.gate = None;
    }
    next.stamped(list, now)
}

/// The executor's last final answer in the chat (its text without tool calls).
fn last_answer(inner: &Inner, chat_id: &ChatId) -> String {
    let messages = inner.store.messages(chat_id).unwrap_or_default();
    messages
        .iter()
        .rev()
        .find_map(|message| match &message.body {
            MessageBody::Assistant {
                content,
                questions: None,
                plan: None,
                tool_calls,
                notice: None,
            } if tool_calls.is_empty() && !content.trim().is_empty() => Some(content.clone()),
            _ => None,
        })
        .unwrap_or_default()
}
