//! Steps of a plan card: stored with a new revision, edited, approved, rejected,
//! cancelled with the whole planning tail, or given up for plain execution.

use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::{Approval, PlanComment, PlanDocument};
use preflight_protocol::tasks::TaskList;

use super::{require_kind, set_card_plan};
use crate::codec::corrupt;
use crate::error::{Conflict, StoreError};
use crate::messages::MessageKind;
use crate::{Store, Tx};

impl Tx<'_> {
    /// The planner gave a plan: stores `document` as the next revision and the card showing
    /// it, clears `plan_pending`, phase `awaiting_approval`. `document.approval` must be
    /// `pending`; the card's `plan` is set to the stored revision. Returns the stored card.
    pub fn record_plan_card(
        &mut self,
        chat_id: &ChatId,
        card: &Message,
        document: PlanDocument,
    ) -> Result<Message, StoreError> {
        if document.approval != Approval::Pending {
            return Err(StoreError::invalid("a plan card for approval has approval pending"));
        }
        self.store_plan_card(chat_id, card, document, Phase::AwaitingApproval)
    }

    /// The planner gave a plan in a chat with auto-approve: as `record_plan_card`, with
    /// approval `pre_approved`, the task list `tasks` initialised and phase `executing`.
    pub fn record_pre_approved_plan(
        &mut self,
        chat_id: &ChatId,
        card: &Message,
        mut document: PlanDocument,
        tasks: &TaskList,
    ) -> Result<Message, StoreError> {
        self.require_phase_planning(chat_id)?;
        require_tasks(tasks)?;
        document.approval = Approval::PreApproved;
        let card = self.store_plan_card(chat_id, card, document, Phase::Executing)?;
        self.save_task_list(chat_id, tasks)?;
        self.set_completion(chat_id, None)?;
        Ok(card)
    }

    /// The user edited the waiting plan: `document` becomes the next revision (approval
    /// pending) and the plan card shows it. Returns the stored revision.
    pub fn edit_plan(
        &mut self,
        chat_id: &ChatId,
        mut document: PlanDocument,
    ) -> Result<PlanDocument, StoreError> {
        let mut card = self.waiting_plan_card(chat_id)?;
        document.approval = Approval::Pending;
        let document = self.put_plan_revision(chat_id, document)?;
        set_card_plan(&mut card, &document);
        self.update_message(chat_id, &card)?;
        Ok(document)
    }

    /// The user approved: approval `approved` on the latest revision and its card, the task
    /// list initialised with `tasks`, phase `executing`.
    pub fn approve_plan(
        &mut self,
        chat_id: &ChatId,
        tasks: &TaskList,
    ) -> Result<PlanDocument, StoreError> {
        self.approve_plan_unconfined(chat_id, tasks, false)
    }

    /// [`Tx::approve_plan`], recording on the plan whether the user allowed its code to run
    /// unconfined (`run_unconfined`, DESIGN §11).
    pub fn approve_plan_unconfined(
        &mut self,
        chat_id: &ChatId,
        tasks: &TaskList,
        run_unconfined: bool,
    ) -> Result<PlanDocument, StoreError> {
        let card = self.waiting_plan_card(chat_id)?;
        require_tasks(tasks)?;
        if run_unconfined {
            self.allow_unconfined(chat_id)?;
        }
        let document = self.decide_plan(chat_id, card, Approval::Approved)?;
        self.save_task_list(chat_id, tasks)?;
        self.set_completion(chat_id, None)?;
        // A new plan's work starts its own log of stops and continues.
        self.set_stop_log(chat_id, &preflight_protocol::tasks::StopLog::default())?;
        self.set_phase(chat_id, Phase::Executing)?;
        Ok(document)
    }

    /// The user rejected the plan with feedback for the planner: approval `rejected` on the
    /// latest revision and its card, the user's `comments` on it kept with that revision,
    /// the feedback (a synthetic `plan_answer` message, if any) appended, phase `planning`
    /// while the planner revises. Rejecting without feedback is a cancel: use `cancel_plan`.
    pub fn reject_plan(
        &mut self,
        chat_id: &ChatId,
        feedback: Option<&Message>,
        comments: Vec<PlanComment>,
    ) -> Result<PlanDocument, StoreError> {
        let card = self.waiting_plan_card(chat_id)?;
        if let Some(feedback) = feedback {
            require_kind(feedback, &[MessageKind::Answer], "feedback is a plan_answer message")?;
        }
        if !comments.is_empty() {
            self.set_plan_comments(chat_id, comments)?;
        }
        let document = self.decide_plan(chat_id, card, Approval::Rejected)?;
        if let Some(feedback) = feedback {
            self.insert_message(chat_id, feedback)?;
        }
        self.set_phase(chat_id, Phase::Planning)?;
        Ok(document)
    }

    /// Deletes the whole planning tail: every message after the chat's first user message
    /// (question cards, answers, plan cards), `plan_pending`, every revision (and a task
    /// list, which a first turn cannot have yet); phase `idle`. The chat is then as it was
    /// right after its first message. Returns how many messages went. Refused
    /// (`NotPlanning`) unless the chat is planning, asking or awaiting approval.
    pub fn cancel_plan(&mut self, chat_id: &ChatId) -> Result<usize, StoreError> {
        match self.phase(chat_id)? {
            Phase::Planning | Phase::Questions | Phase::AwaitingApproval => {}
            phase => return Err(StoreError::wrong_state(chat_id, Conflict::NotPlanning { phase })),
        }
        let deleted = match self.first_user_message(chat_id)? {
            Some(first) => self.delete_messages_after(chat_id, &first.id)?,
            None => 0,
        };
        self.clear_planning(chat_id)?;
        self.set_phase(chat_id, Phase::Idle)?;
        Ok(deleted)
    }

    /// The planner failed and the chat stops there (`[plan_mode] on_planner_failure =
    /// "stop"`): it is settled as a stopped planner is (a first planning turn leaves the chat
    /// as right after its message, and its next message plans again; a revision's card
    /// waits again), then `notice` (an assistant message) says why. Returns the phase the
    /// chat is left in.
    pub fn stop_failed_planning(
        &mut self,
        chat_id: &ChatId,
        notice: &Message,
    ) -> Result<Phase, StoreError> {
        require_kind(notice, &[MessageKind::Assistant], "a notice is an assistant message")?;
        let phase = self.settle_interrupted_planning(chat_id)?;
        if phase == Phase::Idle {
            self.set_plans_again(chat_id, true)?;
        }
        self.insert_message(chat_id, notice)?;
        Ok(phase)
    }

    /// The planner gave neither card, failed, or asked past the last round: `plan_pending`
    /// is dropped, `notice` (an assistant message, if any) appended, phase `executing`.
    pub fn fall_back_to_execution(
        &mut self,
        chat_id: &ChatId,
        notice: Option<&Message>,
    ) -> Result<(), StoreError> {
        self.require_phase_planning(chat_id)?;
        if let Some(notice) = notice {
            require_kind(notice, &[MessageKind::Assistant], "a notice is an assistant message")?;
            self.insert_message(chat_id, notice)?;
        }
        self.set_plan_pending(chat_id, None)?;
        self.set_phase(chat_id, Phase::Executing)
    }

    /// A planner turn that was stopped (or whose process died) leaves the chat where the
    /// user can act again, never half-planned: a complete question card waits again (the
    /// user may change an answer or cancel), a plan under revision waits for approval again,
    /// and a first planning turn is cancelled (the chat as right after its message).
    /// Returns the phase the chat is left in.
    pub fn settle_interrupted_planning(&mut self, chat_id: &ChatId) -> Result<Phase, StoreError> {
        self.require_phase_planning(chat_id)?;
        let state = self.state(chat_id)?;
        if state.plan_pending.is_some() {
            self.set_phase(chat_id, Phase::Questions)?;
            return Ok(Phase::Questions);
        }
        if state.plan.as_ref().is_some_and(|plan| plan.approval == Approval::Rejected) {
            let card = self
                .last_of_kind(chat_id, MessageKind::PlanCard)?
                .ok_or_else(|| corrupt("plan_revisions", chat_id, "a plan without its card"))?;
            self.decide_plan(chat_id, card, Approval::Pending)?;
            self.set_phase(chat_id, Phase::AwaitingApproval)?;
            return Ok(Phase::AwaitingApproval);
        }
        self.cancel_plan(chat_id)?;
        Ok(Phase::Idle)
    }

    fn store_plan_card(
        &mut self,
        chat_id: &ChatId,
        card: &Message,
        document: PlanDocument,
        phase: Phase,
    ) -> Result<Message, StoreError> {
        self.require_phase_planning(chat_id)?;
        let MessageBody::Assistant { questions: None, tool_calls, .. } = &card.body else {
            return Err(StoreError::invalid("a plan card is an assistant message, no questions"));
        };
        if !tool_calls.is_empty() {
            return Err(StoreError::invalid("a plan card has no tool calls"));
        }
        let mut card = card.clone();
        let document = self.put_plan_revision(chat_id, document)?;
        set_card_plan(&mut card, &document);
        self.insert_message(chat_id, &card)?;
        self.set_plan_pending(chat_id, None)?;
        self.set_phase(chat_id, phase)?;
        Ok(card)
    }

    /// Sets `approval` on the latest revision and on `card`, the plan card showing it.
    fn decide_plan(
        &mut self,
        chat_id: &ChatId,
        mut card: Message,
        approval: Approval,
    ) -> Result<PlanDocument, StoreError> {
        let document = self.set_plan_approval(chat_id, approval)?;
        set_card_plan(&mut card, &document);
        self.update_message(chat_id, &card)?;
        Ok(document)
    }

    /// The card of the plan waiting for approval, or `NoPendingPlan`.
    fn waiting_plan_card(&self, chat_id: &ChatId) -> Result<Message, StoreError> {
        let state = self.state(chat_id)?;
        let waiting = state.plan.as_ref().is_some_and(|plan| plan.approval == Approval::Pending);
        if state.phase != Phase::AwaitingApproval || !waiting {
            return Err(StoreError::wrong_state(chat_id, Conflict::NoPendingPlan));
        }
        self.last_of_kind(chat_id, MessageKind::PlanCard)?
            .ok_or_else(|| corrupt("plan_revisions", chat_id, "a waiting plan without its card"))
    }
}

fn require_tasks(tasks: &TaskList) -> Result<(), StoreError> {
    if tasks.tasks.is_empty() {
        return Err(StoreError::invalid("an approved plan starts a task list with its steps"));
    }
    Ok(())
}

impl Store {
    /// See [`Tx::settle_interrupted_planning`].
    pub fn settle_interrupted_planning(&self, chat_id: &ChatId) -> Result<Phase, StoreError> {
        self.write(|tx| tx.settle_interrupted_planning(chat_id))
    }

    /// See [`Tx::record_plan_card`].
    pub fn record_plan_card(
        &self,
        chat_id: &ChatId,
        card: &Message,
        document: PlanDocument,
    ) -> Result<Message, StoreError> {
        self.write(|tx| tx.record_plan_card(chat_id, card, document))
    }

    /// See [`Tx::record_pre_approved_plan`].
    pub fn record_pre_approved_plan(
        &self,
        chat_id: &ChatId,
        card: &Message,
        document: PlanDocument,
        tasks: &TaskList,
    ) -> Result<Message, StoreError> {
        self.write(|tx| tx.record_pre_approved_plan(chat_id, card, document, tasks))
    }

    /// See [`Tx::edit_plan`].
    pub fn edit_plan(
        &self,
        chat_id: &ChatId,
        document: PlanDocument,
    ) -> Result<PlanDocument, StoreError> {
        self.write(|tx| tx.edit_plan(chat_id, document))
    }

    /// See [`Tx::approve_plan`].
    pub fn approve_plan(
        &self,
        chat_id: &ChatId,
        tasks: &TaskList,
    ) -> Result<PlanDocument, StoreError> {
        self.write(|tx| tx.approve_plan(chat_id, tasks))
    }

    /// See [`Tx::approve_plan_unconfined`].
    pub fn approve_plan_unconfined(
        &self,
        chat_id: &ChatId,
        tasks: &TaskList,
        run_unconfined: bool,
    ) -> Result<PlanDocument, StoreError> {
        self.write(|tx| tx.approve_plan_unconfined(chat_id, tasks, run_unconfined))
    }

    /// See [`Tx::reject_plan`].
    pub fn reject_plan(
        &self,
        chat_id: &ChatId,
        feedback: Option<&Message>,
        comments: Vec<PlanComment>,
    ) -> Result<PlanDocument, StoreError> {
        self.write(|tx| tx.reject_plan(chat_id, feedback, comments))
    }

    /// See [`Tx::cancel_plan`].
    pub fn cancel_plan(&self, chat_id: &ChatId) -> Result<usize, StoreError> {
        // The user's cancel (not a stopped planner's settling, which also cancels): the
        // chat is as right after its first message, and its next message plans again.
        self.write(|tx| {
            let deleted = tx.cancel_plan(chat_id)?;
            tx.set_plans_again(chat_id, true)?;
            Ok(deleted)
        })
    }

    /// See [`Tx::stop_failed_planning`].
    pub fn stop_failed_planning(
        &self,
        chat_id: &ChatId,
        notice: &Message,
    ) -> Result<Phase, StoreError> {
        self.write(|tx| tx.stop_failed_planning(chat_id, notice))
    }

    /// See [`Tx::fall_back_to_execution`].
    pub fn fall_back_to_execution(
        &self,
        chat_id: &ChatId,
        notice: Option<&Message>,
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.fall_back_to_execution(chat_id, notice))
    }
}
