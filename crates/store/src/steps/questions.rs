//! Steps of a question card: it is stored with `plan_pending`, then answered one question
//! at a time, each answer also stored as a synthetic user message.

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Message, MessageBody, Phase, PlanPending};
use preflight_protocol::ids::{ChatId, MessageId, QuestionId};
use preflight_protocol::planner::Question;

use crate::codec::corrupt;
use crate::error::{Conflict, StoreError};
use crate::messages::MessageKind;
use crate::{Store, Tx};

/// The synthetic answer's text: `"<question>\nUser's answer: <answer>"` (DESIGN §2).
pub fn answer_text(question: &str, answer: &str) -> String {
    format!("{question}\nUser's answer: {answer}")
}

/// What `record_answer` stored.
#[derive(Debug, Clone, PartialEq)]
pub struct AnswerRecorded {
    /// The synthetic `plan_answer` message, now the chat's last message.
    pub message: Message,
    /// The earlier synthetic message of the same question, deleted by this re-answer.
    pub replaced: Option<MessageId>,
    /// The waiting card after the answer.
    pub pending: PlanPending,
    /// Every question of the card has an answer: the phase is now `planning` and the
    /// planner should run again.
    pub complete: bool,
}

impl Tx<'_> {
    /// The planner asked: stores the card, sets `plan_pending`, phase `questions`.
    ///
    /// The card's questions must be `pending.questions`, none answered yet. A later round's
    /// card replaces the previous `plan_pending` (whose answers the caller carries over).
    pub fn record_question_card(
        &mut self,
        chat_id: &ChatId,
        card: &Message,
        pending: &PlanPending,
    ) -> Result<(), StoreError> {
        self.require_phase_planning(chat_id)?;
        let MessageBody::Assistant { questions: Some(questions), plan: None, tool_calls, .. } =
            &card.body
        else {
            return Err(StoreError::invalid("a question card carries questions and no plan"));
        };
        if questions.is_empty() || *questions != pending.questions || !tool_calls.is_empty() {
            return Err(StoreError::invalid("the card's questions are plan_pending's, no tools"));
        }
        if questions.iter().any(|question| question.answer.is_some()) {
            return Err(StoreError::invalid("a new question card has no answers yet"));
        }
        self.insert_message(chat_id, card)?;
        self.set_plan_pending(chat_id, Some(pending))?;
        self.set_phase(chat_id, Phase::Questions)
    }

    /// The user answered `question_id`: the answer goes into `plan_pending` and the card,
    /// and the synthetic answer message is appended. Answering a question again before the
    /// card is complete replaces its answer and deletes its earlier synthetic message.
    /// When the card is complete the phase becomes `planning`.
    pub fn record_answer(
        &mut self,
        chat_id: &ChatId,
        question_id: &QuestionId,
        answer: &str,
    ) -> Result<AnswerRecorded, StoreError> {
        let (mut pending, index, mut card) = self.answerable(chat_id, question_id, answer)?;
        let question = &mut pending.questions[index];
        let replaced = match question.answer.replace(answer.to_owned()) {
            Some(old) => {
                self.forget_answer(chat_id, &card, question, &old, &mut pending.answers)?
            }
            None => None,
        };
        let message = synthetic_answer(&pending.questions[index].question, answer);
        pending.answers.push(message.content().to_owned());
        set_card_questions(&mut card, &pending.questions);
        self.update_message(chat_id, &card)?;
        self.insert_message(chat_id, &message)?;
        self.set_plan_pending(chat_id, Some(&pending))?;
        let complete = pending.questions.iter().all(|question| question.answer.is_some());
        if complete {
            self.set_phase(chat_id, Phase::Planning)?;
        }
        Ok(AnswerRecorded { message, replaced, pending, complete })
    }

    /// Checks an answer before anything is written: the waiting card, the index of the
    /// question answered, and the card's message.
    fn answerable(
        &self,
        chat_id: &ChatId,
        question_id: &QuestionId,
        answer: &str,
    ) -> Result<(PlanPending, usize, Message), StoreError> {
        let pending = self.waiting_card(chat_id)?;
        let Some(index) = pending.questions.iter().position(|q| q.id == *question_id) else {
            let question_id = question_id.to_owned();
            let conflict = Conflict::UnknownQuestion { question_id };
            return Err(StoreError::wrong_state(chat_id, conflict));
        };
        if answer.trim().is_empty() {
            return Err(StoreError::invalid("an answer is not empty"));
        }
        let card = self.last_of_kind(chat_id, MessageKind::QuestionCard)?;
        let card = card.ok_or_else(|| {
            corrupt("chat_state", chat_id, "plan_pending without its question card")
        })?;
        Ok((pending, index, card))
    }

    /// The card waiting for answers, or `NoQuestions`.
    fn waiting_card(&self, chat_id: &ChatId) -> Result<PlanPending, StoreError> {
        let state = self.state(chat_id)?;
        match state.plan_pending {
            Some(pending) if state.phase == Phase::Questions => Ok(pending),
            _ => Err(StoreError::wrong_state(chat_id, Conflict::NoQuestions)),
        }
    }

    /// Removes an earlier answer to `question`: its entry in `answers` and its synthetic
    /// message after the card. Returns the deleted message's id.
    fn forget_answer(
        &mut self,
        chat_id: &ChatId,
        card: &Message,
        question: &Question,
        old_answer: &str,
        answers: &mut Vec<String>,
    ) -> Result<Option<MessageId>, StoreError> {
        let old_text = answer_text(&question.question, old_answer);
        if let Some(position) = answers.iter().rposition(|text| *text == old_text) {
            answers.remove(position);
        }
        let earlier = self.messages_after(chat_id, &card.id)?.into_iter().rev().find(|message| {
            message.content() == old_text
                && MessageKind::of(&message.body).ok() == Some(MessageKind::Answer)
        });
        let Some(earlier) = earlier else {
            return Ok(None);
        };
        self.delete_message(chat_id, &earlier.id)?;
        Ok(Some(earlier.id))
    }
}

fn synthetic_answer(question: &str, answer: &str) -> Message {
    Message {
        id: MessageId::new(),
        created_at: now_rfc3339(),
        body: MessageBody::User {
            content: answer_text(question, answer),
            files: Vec::new(),
            attachments: Vec::new(),
            plan_answer: true,
            resume: None,
            stopped: None,
            restored: None,
            review: None,
            typed: None,
        },
    }
}

fn set_card_questions(card: &mut Message, answered: &[Question]) {
    if let MessageBody::Assistant { questions, .. } = &mut card.body {
        *questions = Some(answered.to_vec());
    }
}

impl Store {
    /// See [`Tx::record_question_card`].
    pub fn record_question_card(
        &self,
        chat_id: &ChatId,
        card: &Message,
        pending: &PlanPending,
    ) -> Result<(), StoreError> {
        self.write(|tx| tx.record_question_card(chat_id, card, pending))
    }

    /// See [`Tx::record_answer`].
    pub fn record_answer(
        &self,
        chat_id: &ChatId,
        question_id: &QuestionId,
        answer: &str,
    ) -> Result<AnswerRecorded, StoreError> {
        self.write(|tx| tx.record_answer(chat_id, question_id, answer))
    }
}
