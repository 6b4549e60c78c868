//! Continue: the user resumes an executor that stopped with tasks left. The resume is a
//! user turn of its own (a message with `resume`), and the executor runs with the approved
//! plan's directive, the open tasks and why it stopped.

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::Phase;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ExecutorStop, StopReason};

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::hub::TurnKind;
use crate::lifecycle::messages::continue_message;
use crate::lifecycle::runner::{spawn_turn, TurnJob};
use crate::lifecycle::view::ChatView;

impl Engine {
    /// Continues the chat's executor: `ERR_TURN_ACTIVE` while a turn runs, `ERR_PLAN_PENDING`
    /// while a card waits, `ERR_NOTHING_LEFT` when no task is open; each changes nothing.
    pub fn continue_work(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        let facts = self.facts(&chat)?;
        if facts.running.is_some() {
            return Err(ApiError::turn_active());
        }
        if matches!(facts.phase, Phase::Questions | Phase::AwaitingApproval) {
            return Err(ApiError::plan_pending());
        }
        let list = self.inner.store.task_list(chat_id)?;
        if !list.has_work_left() {
            return Err(ApiError::nothing_left());
        }
        let state = self.inner.store.state(chat_id)?;
        let now = now_rfc3339();
        // Without a recorded stop (the user's own message went on since), the model ended
        // its last turn: that is the only way a turn ends without one.
        let unverified = state.completion.clone().and_then(|completion| {
            completion.finalization.filter(|note| note.waits_for_the_user())
        });
        let stop = match (state.stopped, &unverified) {
            (Some(stop), _) => stop,
            // The plan finished but a check failed when run again: that is why work is left.
            (None, Some(note)) => {
                let why = format!("not verified: {}", note.reasons.join("; "));
                ExecutorStop::of(StopReason::GateFailed, Some(&why), &list, &now)
            }
            (None, None) => ExecutorStop::of(StopReason::Answered, None, &list, &now),
        };
        let guard = self.claim_turn(chat_id, TurnKind::Executor)?;
        let message = continue_message(&stop, false);
        // The unverified record gives way to the work; the next completion replaces it.
        self.inner.store.write(|tx| {
            if unverified.is_some() {
                tx.set_completion(chat_id, None)?;
            }
            tx.begin_continue(chat_id, &message, false, &now)
        })?;
        self.announce(chat_id, &message, Phase::Executing);
        spawn_turn(&self.inner, guard, TurnJob::Execute);
        self.chat_view(chat_id)
    }
}
