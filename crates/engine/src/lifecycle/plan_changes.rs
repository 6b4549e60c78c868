//! The user's answers to the executor's plan changes, and the completion record of a plan
//! carried out (DESIGN §12).
//!
//! An answer is stored with the user's decision as a message in one transaction; when the
//! task list still has work, that message resumes the executor (which reads it as the
//! user's word). When no plan step is left, the plan's completion record is stored and the
//! list closed.

use crate::chat::{Message, MessageBody, Phase};
use crate::events::Event;
use crate::ids::{ChangeId, ChatId};
use crate::now_rfc3339;
use crate::store::{Conflict, StoreError};
use crate::tasks::{ChangeStatus, Completion, PlanChange, TaskList};

use super::error::ApiError;
use super::hub::TurnKind;
use super::messages::user_message;
use super::plan_files::plan_files_link;
use super::runner::{spawn_turn, TurnJob};
use super::view::ChatView;
use super::{Engine, Inner};

impl Engine {
    /// `GET /v1/chats/{id}/plan/changes`: the chat's change requests, oldest first.
    pub fn plan_changes(&self, chat_id: &ChatId) -> Result<Vec<PlanChange>, ApiError> {
        Ok(self.inner.store.plan_changes(chat_id)?)
    }

    /// Approves (or with `approve: false` rejects) a waiting change. Refused while a turn
    /// runs (`ERR_TURN_ACTIVE`), for a change answered already (`ERR_CHANGE_ANSWERED`) or
    /// one the list no longer fits (`ERR_CHANGE_STALE`); nothing changes then. With work
    /// left the executor resumes; with none the plan is complete.
    pub async fn answer_plan_change(
        &self,
        chat_id: &ChatId,
        change_id: &ChangeId,
        approve: bool,
    ) -> Result<ChatView, ApiError> {
        let (answer, guard, decision) = {
            let _serial = self.serialize();
            self.inner.store.get_chat(chat_id)?;
            // An answered change says so even while the turn it resumed runs.
            let asked = self.inner.store.read(|tx| tx.plan_change(chat_id, change_id))?;
            if asked.status != ChangeStatus::Pending {
                let status = asked.status.as_str();
                let conflict = Conflict::ChangeAnswered { change_id: change_id.clone(), status };
                return Err(StoreError::wrong_state(chat_id, conflict).into());
            }
            let guard = self.claim_turn(chat_id, TurnKind::Executor)?;
            let now = now_rfc3339();
            self.inner.store.write(|tx| {
                let answer = tx.answer_plan_change(chat_id, change_id, approve, &now)?;
                let resumes = answer.list.has_work_left();
                let decision = decision_message(&answer.change);
                if resumes {
                    tx.begin_user_turn(chat_id, &decision, Phase::Executing)?;
                }
                Ok((answer, resumes.then_some(guard), decision))
            })?
        };
        if let Some(link) = plan_files_link(&self.inner, chat_id).await {
            crate::agent::sync_plan_files(&link, chat_id, &answer.list).await;
        }
        self.emit(chat_id, Event::PlanChange { change: answer.change.clone() });
        match guard {
            Some(guard) => {
                self.emit(chat_id, Event::TaskList { tasks: answer.list.tasks.clone() });
                self.announce(chat_id, &decision, Phase::Executing);
                spawn_turn(&self.inner, guard, TurnJob::Execute);
            }
            None => {
                for event in complete_if_done(&self.inner, chat_id, None).await {
                    self.emit(chat_id, event);
                }
            }
        }
        self.chat_view(chat_id)
    }
}

/// The user's decision as the message the resumed executor reads.
fn decision_message(change: &PlanChange) -> Message {
    let text = match change.status {
        ChangeStatus::Approved => format!(
            "I approve the plan change: {}. Go on with the plan as it now stands.",
            change.describe()
        ),
        _ => format!(
            "Keep the plan: I do not approve the change ({}). Go on with the plan as approved.",
            change.describe()
        ),
    };
    user_message(&text, Vec::new())
}

/// When the chat's list carries out a plan and no step of it is left: the completion
/// record stored (with `summary`, else the executor's last answer) and the list closed.
/// Returns the events to send (none when the plan is not finished, or on a store failure,
/// which is logged: the list then stays, and the next turn's end tries again).
pub(super) async fn complete_if_done(
    inner: &Inner,
    chat_id: &ChatId,
    summary: Option<&str>,
) -> Vec<Event> {
    let Ok(list) = inner.store.task_list(chat_id) else { return Vec::new() };
    if !list.plan_finished() {
        return Vec::new();
    }
    let summary = match summary {
        Some(text) if !text.trim().is_empty() => text.to_owned(),
        _ => last_answer(inner, chat_id),
    };
    let completion = list.completion(&summary, &now_rfc3339());
    if let Err(error) = inner.store.complete_plan(chat_id, &completion) {
        tracing::error!(%chat_id, %error, "the completion record could not be stored");
        return Vec::new();
    }
    record_in_plan_files(inner, chat_id, &list, &completion).await;
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

/// A `.dwp` chat writes the record into PROGRESS.md (DESIGN §12).
async fn record_in_plan_files(
    inner: &Inner,
    chat_id: &ChatId,
    list: &TaskList,
    completion: &Completion,
) {
    let Some(link) = plan_files_link(inner, chat_id).await else { return };
    crate::agent::sync_plan_files(&link, chat_id, list).await;
    let (lines, link) = (completion_lines(completion), link.clone());
    let written = tokio::task::spawn_blocking(move || {
        link.files.record_completion(&link.dir, &lines, &now_rfc3339())
    })
    .await;
    if let Ok(Err(error)) = written {
        tracing::warn!(%chat_id, %error, "the completion could not be written to the plan folder");
    }
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
