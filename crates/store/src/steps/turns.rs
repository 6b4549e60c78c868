//! Steps of a turn: it begins with the user's message, may be edited and re-sent, gathers
//! executor messages, and ends.

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::ids::{ChatId, MessageId};

use super::require_kind;
use crate::error::{Conflict, StoreError};
use crate::messages::MessageKind;
use crate::{Store, Tx};

impl Tx<'_> {
    /// `send`: stores the user's message and enters `phase` (`planning` or `executing`).
    ///
    /// Refused while a question card waits (`PlanPending`) or a plan card waits for
    /// approval (`PlanAwaitingApproval`: such a message is feedback, see `reject_plan`).
    pub fn begin_user_turn(
        &mut self,
        chat_id: &ChatId,
        message: &Message,
        phase: Phase,
    ) -> Result<(), StoreError> {
        require_turn_phase(phase)?;
        require_kind(message, &[MessageKind::User], "a turn begins with the user's own message")?;
        self.require_no_waiting_card(chat_id)?;
        self.insert_message(chat_id, message)?;
        self.clear_current_stop(chat_id)?;
        self.set_plans_again(chat_id, false)?;
        self.set_phase(chat_id, phase)
    }

    /// A Continue: its message (a user message with `resume`) stored, the stop no longer
    /// current and the continue recorded, phase `executing`.
    pub fn begin_continue(
        &mut self,
        chat_id: &ChatId,
        message: &Message,
        auto: bool,
        now: &str,
    ) -> Result<(), StoreError> {
        require_kind(message, &[MessageKind::User], "a Continue is a user message")?;
        self.require_no_waiting_card(chat_id)?;
        let log = self.stop_log(chat_id)?.continued(auto, now);
        self.insert_message(chat_id, message)?;
        self.set_stop_log(chat_id, &log)?;
        self.set_phase(chat_id, Phase::Executing)
    }

    /// Edit and re-send: the user message gets `content`, every message after it goes, and
    /// the chat enters `phase`. Editing the first user message also drops the plan, its
    /// revisions, the task list and any waiting card, so plan mode can run again.
    pub fn edit_user_message(
        &mut self,
        chat_id: &ChatId,
        message_id: &MessageId,
        content: &str,
        phase: Phase,
    ) -> Result<Message, StoreError> {
        require_turn_phase(phase)?;
        let mut message = self.message(chat_id, message_id)?;
        let MessageBody::User { content: text, plan_answer: false, typed, .. } = &mut message.body
        else {
            let conflict = Conflict::NotEditable { message_id: message_id.to_owned() };
            return Err(StoreError::wrong_state(chat_id, conflict));
        };
        content.clone_into(text);
        // The edited words are what the model reads now, not a prompt's expansion.
        *typed = None;
        let first = self.first_user_message(chat_id)?.is_some_and(|first| first.id == *message_id);
        self.delete_messages_after(chat_id, message_id)?;
        self.update_message(chat_id, &message)?;
        // The chat as it stands after the edit is this message's point from now on.
        let seq = self.message_seq(chat_id, message_id)?;
        self.written.push((chat_id.clone(), seq));
        self.clear_current_stop(chat_id)?;
        self.set_plans_again(chat_id, false)?;
        if first {
            self.clear_planning(chat_id)?;
        }
        self.set_phase(chat_id, phase)?;
        Ok(message)
    }

    /// Executor output: assistant rounds (with their `tool_calls`), tool results, the final
    /// answer, notices. Cards and answers are refused: only their own steps store them.
    pub fn append_messages(
        &mut self,
        chat_id: &ChatId,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        let allowed = [MessageKind::Assistant, MessageKind::Tool];
        for message in messages {
            require_kind(message, &allowed, "executor output is assistant or tool messages")?;
        }
        messages.iter().try_for_each(|message| self.insert_message(chat_id, message))
    }

    /// A compaction record of the running turn (DESIGN §13): a summary that stands for
    /// stored messages in the model's view; they stay stored.
    pub fn append_compaction(
        &mut self,
        chat_id: &ChatId,
        record: &Message,
    ) -> Result<(), StoreError> {
        require_kind(record, &[MessageKind::Compaction], "a compaction record")?;
        if let MessageBody::Compaction { covers, .. } = &record.body {
            for id in covers {
                self.message(chat_id, id)?;
            }
        }
        self.insert_message(chat_id, record)
    }

    /// The turn is over: phase `idle`, and the task list closed (deleted) when
    /// `close_task_list` (it has no pending or active task left, DESIGN §5).
    ///
    /// Refused while a card waits for the user: leave those with `cancel_plan`.
    pub fn finish_turn(
        &mut self,
        chat_id: &ChatId,
        close_task_list: bool,
    ) -> Result<(), StoreError> {
        self.require_no_waiting_card(chat_id)?;
        if close_task_list {
            self.delete_task_list(chat_id)?;
        }
        self.set_phase(chat_id, Phase::Idle)
    }

    fn require_no_waiting_card(&self, chat_id: &ChatId) -> Result<(), StoreError> {
        let state = self.state(chat_id)?;
        if state.plan_pending.is_some() || state.phase == Phase::Questions {
            return Err(StoreError::wrong_state(chat_id, Conflict::PlanPending));
        }
        if state.phase == Phase::AwaitingApproval {
            return Err(StoreError::wrong_state(chat_id, Conflict::PlanAwaitingApproval));
        }
        Ok(())
    }
}

fn require_turn_phase(phase: Phase) -> Result<(), StoreError> {
    match phase {
        Phase::Planning | Phase::Executing => Ok(()),
        other => Err(StoreError::invalid(format!(
            "a turn runs in phase planning or executing, not {}",
            other.as_str()
        ))),
    }
}

impl Store {
    /// See [`Tx::begin_user_turn`].
    pub fn begin_user_turn(
        &self,
        chat_id: &ChatId,
        message: &Message,
        phase: Phase,
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.begin_user_turn(chat_id, message, phase))
    }

    /// See [`Tx::begin_continue`].
    pub fn begin_continue(
        &self,
        chat_id: &ChatId,
        message: &Message,
        auto: bool,
        now: &str,
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.begin_continue(chat_id, message, auto, now))
    }

    /// See [`Tx::edit_user_message`].
    pub fn edit_user_message(
        &self,
        chat_id: &ChatId,
        message_id: &MessageId,
        content: &str,
        phase: Phase,
    ) -> Result<Message, StoreError> {
        self.write(|tx| tx.edit_user_message(chat_id, message_id, content, phase))
    }

    /// See [`Tx::append_messages`]; all of `messages` or none are stored.
    pub fn append_messages(
        &self,
        chat_id: &ChatId,
        messages: &[Message],
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.append_messages(chat_id, messages))
    }

    /// See [`Tx::append_compaction`].
    pub fn append_compaction(&self, chat_id: &ChatId, record: &Message) -> Result<(), StoreError> {
        self.write(|tx| tx.append_compaction(chat_id, record))
    }

    /// See [`Tx::finish_turn`].
    pub fn finish_turn(&self, chat_id: &ChatId, close_task_list: bool) -> Result<(), StoreError> {
        self.write(|tx| tx.finish_turn(chat_id, close_task_list))
    }
}
