//! The user's answers to a plan-mode chat: answer questions, approve, revise, cancel, and
//! edit a pending plan (DESIGN §2).

use preflight_agent::events::Event;
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{MessageBody, Phase};
use preflight_protocol::ids::{ChatId, QuestionId};
use preflight_protocol::planner::{
    edited_plan_document, review_comments, CommentDraft, PlanDocument, PlanEdit,
};

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::hub::TurnKind;
use crate::lifecycle::messages::feedback_message;
use crate::lifecycle::runner::{spawn_turn, TurnJob};
use crate::lifecycle::transitions::approved_tasks;
use crate::lifecycle::unconfined::{chat_notice, consent_missing, ApproveChoice};
use crate::lifecycle::view::ChatView;

/// What the user sends with a rejection of the waiting plan (DESIGN §16).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PlanReview {
    /// What the planner should change, in the user's words.
    pub feedback: Option<String>,
    /// Comments anchored to the plan's steps and fields.
    pub comments: Vec<CommentDraft>,
}

impl Engine {
    /// Answers one question of the waiting card. When the card is complete the planner
    /// runs again with every answer so far.
    pub fn answer(
        &self,
        chat_id: &ChatId,
        question_id: &QuestionId,
        answer: &str,
    ) -> Result<ChatView, ApiError> {
        let _serial = self.serialize();
        self.inner.store.get_chat(chat_id)?;
        let answer = answer.trim();
        if answer.is_empty() {
            return Err(ApiError::new(ErrorCode::EmptyAnswer, "an answer cannot be empty"));
        }
        if self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        let recorded = self.inner.store.record_answer(chat_id, question_id, answer)?;
        self.emit_card(chat_id, |body| {
            matches!(body, MessageBody::Assistant { questions: Some(_), .. })
        });
        self.emit(chat_id, Event::Message { message: recorded.message.clone() });
        if recorded.complete {
            // No turn runs while questions wait, and actions are serialised: this succeeds.
            let guard = self.claim_turn(chat_id, TurnKind::Planner)?;
            self.emit_phase(chat_id, Phase::Planning);
            spawn_turn(&self.inner, guard, TurnJob::Plan);
        }
        self.chat_view(chat_id)
    }

    /// Approves the waiting plan: the task list starts from its steps and the executor runs
    /// the original task once, with the plan as its directive.
    pub fn approve_plan(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        self.approve_plan_as(chat_id, ApproveChoice::default())
    }

    /// [`Engine::approve_plan`] with the user's choice on running unconfined: where the code
    /// sandbox cannot confine runs (`state.unconfined.needs_consent`), approval without
    /// `run_unconfined` is `ERR_UNCONFINED` and changes nothing.
    pub fn approve_plan_as(
        &self,
        chat_id: &ChatId,
        choice: ApproveChoice,
    ) -> Result<ChatView, ApiError> {
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        let plan = self.waiting_plan(chat_id)?;
        let notice = chat_notice(self.inner.confinement.as_deref(), &chat);
        if let Some(notice) = notice.as_ref().filter(|n| n.needs_consent && !choice.run_unconfined)
        {
            return Err(ApiError::new(ErrorCode::Unconfined, consent_missing(notice)));
        }
        let tasks = approved_tasks(&plan.steps).map_err(|limit| {
            ApiError::bad_request(format!(
                "This plan cannot be approved as it is: {limit}. Edit its steps, or ask the \
                 planner for a shorter plan."
            ))
        })?;
        let guard = self.claim_turn(chat_id, TurnKind::Executor)?;
        let run_unconfined = choice.run_unconfined && notice.is_some_and(|n| n.needs_consent);
        self.inner.store.approve_plan_unconfined(chat_id, &tasks, run_unconfined)?;
        self.emit_plan_card(chat_id);
        self.emit(chat_id, Event::TaskList { tasks: tasks.tasks });
        self.emit_phase(chat_id, Phase::Executing);
        spawn_turn(&self.inner, guard, TurnJob::Execute);
        self.chat_view(chat_id)
    }

    /// Rejects the waiting plan. With feedback or comments the planner revises it (they
    /// count as an answer); with neither, this is a cancel. Comments are checked against
    /// the waiting plan first: one whose anchor the plan does not have is
    /// `ERR_BAD_REQUEST` and changes nothing.
    pub fn reject_plan(&self, chat_id: &ChatId, review: &PlanReview) -> Result<ChatView, ApiError> {
        let _serial = self.serialize();
        self.inner.store.get_chat(chat_id)?;
        let feedback = review.feedback.as_deref().map(str::trim).filter(|text| !text.is_empty());
        if feedback.is_none() && review.comments.is_empty() {
            self.waiting_plan(chat_id)?;
            return self.cancel_plan_now(chat_id);
        }
        self.revise_plan(chat_id, feedback, &review.comments)
    }

    /// Revision feedback and comments for the waiting plan: stored like an answer (the
    /// comments also with the revision they were made on), then the planner revises with
    /// all of them in one request. The caller holds the action lock.
    pub(super) fn revise_plan(
        &self,
        chat_id: &ChatId,
        feedback: Option<&str>,
        drafts: &[CommentDraft],
    ) -> Result<ChatView, ApiError> {
        let plan = self.waiting_plan(chat_id)?;
        let comments = review_comments(&plan, drafts)
            .map_err(|error| ApiError::bad_request(format!("{error}; nothing was sent")))?;
        let guard = self.claim_turn(chat_id, TurnKind::Planner)?;
        let message = feedback_message(plan.revision, feedback, &comments);
        self.inner.store.reject_plan(chat_id, Some(&message), comments)?;
        self.emit_plan_card(chat_id);
        self.emit(chat_id, Event::Message { message });
        self.emit_phase(chat_id, Phase::Planning);
        spawn_turn(&self.inner, guard, TurnJob::Plan);
        self.chat_view(chat_id)
    }

    /// Cancels plan mode: the whole planning tail goes, the chat is as right after its
    /// original message, and the managed profile is back. Stops a planner that is running.
    pub async fn cancel_plan(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        if self.inner.hub.turn(chat_id).is_some_and(|turn| turn.kind == TurnKind::Planner) {
            self.inner.hub.stop_turn(chat_id).await;
        }
        let _serial = self.serialize();
        self.cancel_plan_now(chat_id)
    }

    /// Edits the waiting plan's title, aim, steps or libraries: a new revision.
    pub fn edit_plan_doc(
        &self,
        chat_id: &ChatId,
        edit: &PlanEdit,
    ) -> Result<PlanDocument, ApiError> {
        let _serial = self.serialize();
        self.inner.store.get_chat(chat_id)?;
        let current = self.waiting_plan(chat_id)?;
        let edited = edited_plan_document(&current, edit, &now_rfc3339())
            .map_err(|error| ApiError::bad_request(error.to_string()))?;
        let stored = self.inner.store.edit_plan(chat_id, edited)?;
        self.emit_plan_card(chat_id);
        Ok(stored)
    }

    /// Cancel is idempotent: with nothing of plan mode left to cancel it changes nothing.
    fn cancel_plan_now(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        let phase = self.inner.store.read(|tx| tx.phase(chat_id))?;
        if !matches!(phase, Phase::Planning | Phase::Questions | Phase::AwaitingApproval) {
            return self.chat_view(chat_id);
        }
        if self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        self.inner.store.cancel_plan(chat_id)?;
        self.emit_task_list(chat_id);
        self.emit_phase(chat_id, Phase::Idle);
        self.chat_view(chat_id)
    }

    /// The plan waiting for approval, or `ERR_NO_PLAN`.
    fn waiting_plan(&self, chat_id: &ChatId) -> Result<PlanDocument, ApiError> {
        let state = self.inner.store.state(chat_id)?;
        match state.plan {
            Some(plan)
                if state.phase == Phase::AwaitingApproval
                    && plan.approval == preflight_protocol::planner::Approval::Pending =>
            {
                Ok(plan)
            }
            _ => Err(ApiError::no_plan()),
        }
    }
}
