//! The completion record of a plan carried out (DESIGN §12): when no step of the chat's
//! plan is left, the record is computed, stored, written into the plan folder's
//! PROGRESS.md, and the list closed.
//!
//! **Invariant:** completion computes and records; it starts no turn and sends no event
//! itself. Its caller (the turn runner, or the answer to a plan change) sends the events
//! it returns and decides what runs next.

use preflight_agent::events::Event;
use preflight_agent::sync_plan_files;
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::MessageBody;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{continues, Completion, FinalizationNote, TaskList, WorkEvent};
use tokio_util::sync::CancellationToken;

use crate::lifecycle::engine::Inner;
use crate::lifecycle::finalize::finalize_plan_files;
use crate::lifecycle::plan_files::{plan_files_link, tell_chat};

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
    completion.finalization =
        record_in_plan_files(inner, chat_id, &list, &completion, cancel).await;
    if let Err(error) = inner.store.complete_plan(chat_id, &completion) {
        tracing::error!(%chat_id, %error, "the completion record could not be stored");
        return Vec::new();
    }
    vec![Event::Completion { completion }, Event::TaskList { tasks: TaskList::empty().tasks }]
}

/// The executor's last final answer in the chat (its text without tool calls).
fn last_answer(inner: &Inner, chat_id: &ChatId) -> String {
    let messages = inner.store.messages(chat_id).unwrap_or_default();
    messages
        .iter()
        .rev()
        .find_map(|message| match &message.body {
            MessageBody::Assistant { content, questions: None, plan: None, tool_calls }
                if tool_calls.is_empty() && !content.trim().is_empty() =>
            {
                Some(content.clone())
            }
            _ => None,
        })
        .unwrap_or_default()
}

/// A `.dwp` chat writes the record into PROGRESS.md (DESIGN §12), then finalises the
/// folder: its verdict, or `None` when the chat saves no plan files or the folder could
/// not be written (said in the chat).
async fn record_in_plan_files(
    inner: &Inner,
    chat_id: &ChatId,
    list: &TaskList,
    completion: &Completion,
    cancel: &CancellationToken,
) -> Option<FinalizationNote> {
    let link = plan_files_link(inner, chat_id).await?;
    tell_chat(inner, chat_id, sync_plan_files(&link, chat_id, list).await);
    let (lines, writer) = (completion_lines(completion), link.clone());
    let written = tokio::task::spawn_blocking(move || {
        writer.files.record_completion(&writer.dir, &lines, &now_rfc3339())
    })
    .await;
    if let Ok(Err(error)) = written {
        tracing::warn!(%chat_id, %error, "the completion could not be written to the plan folder");
        let message = format!("The plan folder could not record the completion: {error}");
        tell_chat(inner, chat_id, Some(message));
    }
    finalize_plan_files(inner, chat_id, &link, cancel).await
}

/// The record as PROGRESS.md lines.
fn completion_lines(completion: &Completion) -> Vec<String> {
    let a = &completion.adherence;
    let mut lines = vec![format!(
        "Plan completed: {} of {} steps done as planned, {} reworded, {} dropped, {} added; {}.",
        a.done_as_planned,
        a.steps,
        a.modified,
        a.dropped,
        a.added,
        if a.in_order { "in the planned order" } else { "not in the planned order" }
    )];
    if let Some(line) = stops_line(&completion.stops_and_continues) {
        lines.push(line);
    }
    lines.extend(restores_lines(&completion.stops_and_continues));
    for deviation in &completion.deviations {
        let kind = serde_json::to_value(deviation.kind).unwrap_or_default();
        let kind = kind.as_str().unwrap_or("deviation").replace('_', " ");
        lines.push(format!(
            "- {kind}: task {} “{}” — {}",
            deviation.task, deviation.title, deviation.detail
        ));
    }
    let summary = completion.summary.split_whitespace().collect::<Vec<_>>().join(" ");
    if !summary.is_empty() {
        lines.push(format!("Summary: {summary}"));
    }
    lines
}

/// Each restore of the workspace to a checkpoint, one PROGRESS.md line apiece.
fn restores_lines(events: &[WorkEvent]) -> impl Iterator<Item = String> + '_ {
    events.iter().filter_map(|event| match event {
        WorkEvent::Restored { checkpoint, reopened, at } => Some(format!(
            "Restored by the user at {at} to checkpoint {checkpoint}; {reopened} task(s) reopened."
        )),
        _ => None,
    })
}

/// The stops and continues in one PROGRESS.md line; none when the work ran through.
fn stops_line(events: &[WorkEvent]) -> Option<String> {
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|event| match event {
            WorkEvent::Stopped { reason, .. } => Some(reason.words().to_owned()),
            WorkEvent::Continued { .. } | WorkEvent::Restored { .. } => None,
        })
        .collect();
    if reasons.is_empty() {
        return None;
    }
    let (continues, auto) = continues(events);
    Some(format!(
        "Stopped {} time(s) with tasks left ({}); continued {continues} time(s), {auto} of them by itself.",
        reasons.len(),
        reasons.join("; ")
    ))
}
