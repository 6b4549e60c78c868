//! Runs a chat's turn in its own task: the planner (quiet, read-only profile) and the
//! executor (streaming, managed profile), and the hand-over between them (DESIGN §2).
//!
//! **Invariant:** this file is the one place that decides what runs next. The planner and
//! the executor each run one turn and return an outcome (`runner/outcome.rs`); neither
//! calls the other. The hand-over planner → executor, and the plan's completion after an
//! executor turn, happen here, in that order.
//!
//! **Invariant:** whatever ends a turn — an answer, an error, a stop — it ends with the
//! chat in a phase where the user can act, and the turn's guard released. The planning
//! profile exists only as the argument of the planner's own tool calls.

use std::sync::Arc;

use outcome::{Closing, Executed, Planned};
use preflight_agent::checkpoints::{CheckpointLink, CheckpointReason};
use preflight_agent::events::Event;
use preflight_agent::WorkChange;
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::Phase;
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ExecutorStop, TaskList};

use crate::lifecycle::completion::complete_if_done;
use crate::lifecycle::engine::Inner;
use crate::lifecycle::hub::{TurnGuard, TurnKind};
use crate::lifecycle::messages::continue_message;
use crate::lifecycle::notify::phase_event;

mod drafting;
mod executor;
mod outcome;
mod planner;
mod scope_guard;
pub(super) mod turn_tools;

/// What a turn is started to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnJob {
    /// A planner turn: the first one, after a complete card of answers, or a revision.
    Plan,
    Execute,
}

/// Starts `job` for the guard's chat in a task of its own: the only place a turn's task
/// is spawned. The guard is released when the turn has settled in the store, and only then
/// are the closing events sent (the card, the phase that hands control back): a user who
/// acts on them finds the chat free.
pub fn spawn_turn(inner: &Arc<Inner>, guard: TurnGuard, job: TurnJob) {
    let tasks = inner.tasks.clone();
    let inner = Arc::clone(inner);
    tasks.spawn(async move {
        let chat_id = guard.chat_id().to_owned();
        let closing = run_job(&inner, &chat_id, &guard, job).await;
        drop(guard);
        for event in closing {
            inner.hub.emit(&chat_id, event);
        }
    });
}

/// A planner turn (when `job` asks for one), then the executor when the planner hands
/// over; the closing events of whichever ended the turn.
async fn run_job(inner: &Inner, chat_id: &ChatId, guard: &TurnGuard, job: TurnJob) -> Closing {
    if job == TurnJob::Plan {
        if let Some(closing) = plan(inner, chat_id, guard).await {
            return closing;
        }
    }
    execute(inner, chat_id, guard).await
}

/// The planner's turn and what follows it: `Some` closing events when the chat waits for
/// the user again, `None` when the executor runs next (the guard already handed over).
async fn plan(inner: &Inner, chat_id: &ChatId, guard: &TurnGuard) -> Option<Closing> {
    match planner::run(inner, chat_id, &guard.cancel).await {
        Planned::Card(closing) => Some(closing),
        Planned::Stopped => Some(planner::settle_stop(inner, chat_id)),
        Planned::Failed(notice) => Some(planner::settle_failure(inner, chat_id, notice)),
        Planned::PreApproved => {
            guard.hand_over_to_executor();
            None
        }
        Planned::HandOver(notice) => {
            if guard.cancel.is_cancelled() {
                return Some(planner::settle_stop(inner, chat_id));
            }
            guard.hand_over_to_executor();
            match planner::hand_over(inner, chat_id, notice) {
                Ok(()) => None,
                Err(error) => {
                    tracing::error!(%chat_id, %error, "cannot hand over to the executor");
                    Some(planner::settle_stop(inner, chat_id))
                }
            }
        }
    }
}

/// Preflight's checkpoint of the chat's workspace (issue 31); one that fails is said in the
/// chat and the turn goes on.
async fn checkpoint(
    inner: &Inner,
    link: Option<&CheckpointLink>,
    chat_id: &ChatId,
    reason: CheckpointReason,
) {
    let Some(link) = link else { return };
    if let Err(message) = link.take(chat_id, reason).await {
        tracing::warn!(%chat_id, %message, "no checkpoint");
        inner.hub.emit(chat_id, Event::Error { code: ErrorCode::Checkpoint, message });
    }
}

/// The executor's turn, then the plan's completion when its last step is done, then the
/// turn's end: the completion's events come first among the closing ones. A turn that
/// ends with tasks left ends on its stop card, or continues by itself while
/// `[executor] auto_continue` allows and the turn made progress.
async fn execute(inner: &Inner, chat_id: &ChatId, guard: &TurnGuard) -> Closing {
    let mut auto_continues_left = inner.executor_settings.auto_continue;
    let checkpoints = CheckpointLink::for_chat(&inner.store, &inner.home, chat_id);
    loop {
        checkpoint(inner, checkpoints.as_ref(), chat_id, CheckpointReason::TurnStart).await;
        let executed = executor::run(inner, chat_id, &guard.cancel).await;
        let answer = executed.answer.as_deref();
        let completed = complete_if_done(inner, chat_id, answer, &guard.cancel).await;
        checkpoint(inner, checkpoints.as_ref(), chat_id, CheckpointReason::TurnEnd).await;
        // Read once: what is left decides both the stop and whether the list closes.
        let list = inner.store.task_list(chat_id).ok();
        let stop =
            list.as_ref().filter(|_| completed.is_empty()).and_then(|l| stop_of(l, &executed));
        let resume = stop.as_ref().is_some_and(|stop| {
            auto_continues_left > 0
                && executed.progressed
                && stop.reason.may_auto_continue()
                && !guard.cancel.is_cancelled()
        });
        if let (true, Some(stop)) = (resume, &stop) {
            auto_continues_left -= 1;
            if auto_continue(inner, chat_id, stop) {
                continue;
            }
        }
        let finished = list.is_some_and(|list| list.is_finished());
        // The plan folder hears the stop before the chat goes idle: whoever trusts the idle
        // chat reads a folder that is written, never one mid-write.
        if let Some(stop) = &stop {
            inner.tell_work(chat_id, WorkChange::Stopped { stop }, &guard.cancel).await;
        }
        let mut closing = finish(inner, chat_id, finished, stop.as_ref());
        closing.splice(0..0, completed);
        return closing;
    }
}

/// The stop of a turn that left tasks of `list` open, or `None` when nothing is left.
fn stop_of(list: &TaskList, executed: &Executed) -> Option<ExecutorStop> {
    let detail = executed.detail.as_deref();
    list.has_work_left().then(|| ExecutorStop::of(executed.reason, detail, list, &now_rfc3339()))
}

/// Records `stop` and continues at once (`[executor] auto_continue`): the stop and the
/// Continue are stored and sent while the turn holds the chat. False when the store
/// refused, and the turn ends on its stop instead.
fn auto_continue(inner: &Inner, chat_id: &ChatId, stop: &ExecutorStop) -> bool {
    let message = continue_message(stop, true);
    let stored = inner.store.write(|tx| {
        tx.record_stop(chat_id, stop)?;
        tx.begin_continue(chat_id, &message, true, &now_rfc3339())
    });
    if let Err(error) = stored {
        tracing::error!(%chat_id, %error, "cannot continue by itself");
        return false;
    }
    inner.hub.emit(chat_id, Event::ExecutorStopped { stopped: stop.clone() });
    inner.hub.emit(chat_id, Event::Message { message });
    true
}

/// Ends an executor turn: its stop recorded when tasks are left, a `finished` task list
/// closed (a `plan` event with no tasks), and the chat `idle`, in one transaction.
fn finish(inner: &Inner, chat_id: &ChatId, finished: bool, stop: Option<&ExecutorStop>) -> Closing {
    let stored = inner.store.write(|tx| {
        if let Some(stop) = stop {
            tx.record_stop(chat_id, stop)?;
        }
        tx.finish_turn(chat_id, finished)
    });
    if let Err(error) = stored {
        tracing::error!(%chat_id, %error, "cannot finish the turn");
        return Vec::new();
    }
    let mut closing = Vec::new();
    if finished {
        closing.push(Event::TaskList { tasks: Vec::new() });
    }
    if let Some(stop) = stop {
        closing.push(Event::ExecutorStopped { stopped: stop.clone() });
    }
    closing.push(phase_event(Phase::Idle));
    closing
}

impl TurnGuard {
    /// Marks the chat's running turn as the executor's (after the planner handed over).
    fn hand_over_to_executor(&self) {
        self.set_kind(TurnKind::Executor);
    }
}
