//! The lifecycle steps of DESIGN §2, each a method of [`Tx`] (to compose) and of
//! [`Store`](super::Store) (one transaction each).
//!
//! A step first checks that it fits the chat's state and its input, and returns a typed
//! error before writing anything; then it writes every effect inside the same transaction.
//!
//! - `turns.rs`: a user turn begins, is edited, executor messages, the turn ends.
//! - `questions.rs`: the question card and its answers.
//! - `plan.rs`: the plan card, its edits, approval, rejection, cancellation, fallback.
//! - `changes.rs`: the executor's requests to change the approved plan and their answers.

mod changes;
mod plan;
mod questions;
mod turns;

pub use changes::{ChangeAnswer, ChangeAsked};
pub use questions::{answer_text, AnswerRecorded};

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;

use super::error::{Conflict, StoreError};
use super::messages::MessageKind;
use super::Tx;

impl Tx<'_> {
    /// Forgets the chat's planning: waiting card, every plan revision, the task list, the
    /// plan's change requests, its completion record and its stops.
    fn clear_planning(&mut self, chat_id: &ChatId) -> Result<(), StoreError> {
        self.set_plan_pending(chat_id, None)?;
        self.delete_plan(chat_id)?;
        self.delete_task_list(chat_id)?;
        self.sql.execute("DELETE FROM plan_changes WHERE chat_id = ?1", [chat_id])?;
        self.set_completion(chat_id, None)?;
        self.set_stop_log(chat_id, &preflight_protocol::tasks::StopLog::default())?;
        Ok(())
    }

    /// `NotPlanning` unless the planner is running for the chat.
    fn require_phase_planning(&self, chat_id: &ChatId) -> Result<(), StoreError> {
        match self.phase(chat_id)? {
            Phase::Planning => Ok(()),
            phase => Err(StoreError::wrong_state(chat_id, Conflict::NotPlanning { phase })),
        }
    }
}

/// The message's kind, or `InvalidInput` unless it is one of `expected`.
fn require_kind(
    message: &Message,
    expected: &[MessageKind],
    what: &str,
) -> Result<MessageKind, StoreError> {
    let kind = MessageKind::of(&message.body)?;
    if !expected.contains(&kind) {
        return Err(StoreError::invalid(format!("{what}, not a {kind:?} message")));
    }
    Ok(kind)
}

/// Points a plan card at `document`.
fn set_card_plan(card: &mut Message, document: &PlanDocument) {
    if let MessageBody::Assistant { plan, .. } = &mut card.body {
        *plan = Some(Box::new(document.clone()));
    }
}
