//! The card that waits for the user, derived from the chat's state: an MCP server's question,
//! the planner's questions, the plan, the executor's change request, or its stop. At most one
//! shows; its rows (options or actions) are what the arrow keys choose between.

use preflight_engine::chat::Phase;
use preflight_engine::confinement::UnconfinedNotice;
use preflight_engine::lifecycle::Elicitation;
use preflight_engine::planner::{PlanDocument, Question};
use preflight_engine::tasks::{ChangeStatus, ExecutorStop, FinalizationNote, PlanChange};

use preflight_engine::mcp::Question as ServerQuestion;
use serde_json::{Map, Value};

use crate::app::form::{form_fields, shown_value, Field};
use crate::app::state::{App, Entry};
use crate::locale::{fill, Words};
use crate::sanitize::one_line;

pub enum Card<'a> {
    Elicitation(&'a Elicitation),
    Questions {
        question: &'a Question,
        number: usize,
        total: usize,
    },
    Plan {
        plan: &'a PlanDocument,
        /// Why the sandbox would not confine this plan's runs here, when it would not.
        unconfined: Option<&'a UnconfinedNotice>,
        calls_tools: bool,
        /// Comments on its steps waiting to go with the next revise.
        comments: usize,
    },
    Change(&'a PlanChange),
    Stopped(&'a ExecutorStop),
    /// The plan finished but its verdict is UNVERIFIED: the user checks again, continues,
    /// or accepts it as is.
    Unverified(&'a FinalizationNote),
}

impl Card<'_> {
    /// Names the card, so a new one resets the chosen row.
    pub fn key(&self) -> String {
        match self {
            Card::Elicitation(elicitation) => format!("mcp:{}", elicitation.id),
            Card::Questions { question, .. } => format!("question:{}", question.id),
            Card::Plan { plan, .. } => format!("plan:{}", plan.revision),
            Card::Change(change) => format!("change:{}", change.id),
            Card::Stopped(stop) => format!("stopped:{}", stop.at),
            Card::Unverified(note) => format!("unverified:{}:{}", note.file, note.reasons.len()),
        }
    }

    /// The rows the arrow keys move between: a question's options and "your own answer", a
    /// form's fields (with their values so far) and its answers, or the card's actions.
    pub fn choices(&self, words: &Words, form: &Map<String, Value>) -> Vec<String> {
        match self {
            Card::Elicitation(_) => {
                let mut rows: Vec<String> = self
                    .fields()
                    .iter()
                    .map(|field| {
                        let mark = if field.required { "*" } else { "" };
                        let value = shown_value(form, &field.name);
                        format!("{}{mark}: {}", one_line(&field.name), one_line(&value))
                    })
                    .collect();
                rows.extend([
                    words.mcp_accept.into(),
                    words.mcp_decline.into(),
                    words.mcp_cancel.into(),
                ]);
                rows
            }
            Card::Questions { question, .. } => {
                let mut rows: Vec<String> = question.options.iter().map(|o| one_line(o)).collect();
                rows.push(words.own_answer.into());
                rows
            }
            Card::Plan { unconfined, comments, .. } => {
                let consent = unconfined.is_some_and(|notice| notice.needs_consent);
                let approve = if consent { words.approve_unconfined } else { words.approve };
                let revise = match comments {
                    0 => words.revise.to_owned(),
                    n => fill(words.revise_with, &[("n", n)]),
                };
                vec![approve.into(), revise, words.cancel_plan.into()]
            }
            Card::Change(_) => vec![words.change_approve.into(), words.change_keep.into()],
            Card::Stopped(_) => vec![words.continue_work.into()],
            Card::Unverified(note) => unverified_actions(note, words)
                .into_iter()
                .map(|action| action.label(words).to_owned())
                .collect(),
        }
    }

    /// Choices laid out in a column (a question's options, a form's fields) rather than a
    /// row of buttons.
    pub fn vertical(&self) -> bool {
        matches!(self, Card::Questions { .. }) || !self.fields().is_empty()
    }

    /// The fields of an MCP server's form; none for any other card.
    pub fn fields(&self) -> Vec<Field> {
        match self {
            Card::Elicitation(Elicitation {
                question: ServerQuestion::Form { schema, .. },
                ..
            }) => form_fields(schema),
            _ => Vec::new(),
        }
    }
}

/// What a plan finished but not verified offers, in order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnverifiedAction {
    CheckAgain,
    /// Only when tasks are open again (their check failed when run again).
    Continue,
    AcceptAsIs,
}

impl UnverifiedAction {
    fn label(self, words: &Words) -> &'static str {
        match self {
            UnverifiedAction::CheckAgain => words.check_again,
            UnverifiedAction::Continue => words.continue_work,
            UnverifiedAction::AcceptAsIs => words.accept_as_is,
        }
    }
}

/// The actions of the unverified card, in the order its rows show them.
pub fn unverified_actions(note: &FinalizationNote, _words: &Words) -> Vec<UnverifiedAction> {
    let mut actions = vec![UnverifiedAction::CheckAgain];
    if !note.reopened.is_empty() {
        actions.push(UnverifiedAction::Continue);
    }
    actions.push(UnverifiedAction::AcceptAsIs);
    actions
}

impl App {
    /// The card waiting for the user, if any.
    pub fn card(&self) -> Option<Card<'_>> {
        if let Some(elicitation) = self.elicitations.first() {
            return Some(Card::Elicitation(elicitation));
        }
        let view = self.chat.as_ref()?;
        let state = &view.state;
        match self.phase {
            Phase::Questions => {
                let pending = state.plan_pending.as_ref()?;
                let total = pending.questions.len();
                let (index, question) =
                    pending.questions.iter().enumerate().find(|(_, q)| q.answer.is_none())?;
                Some(Card::Questions { question, number: index + 1, total })
            }
            Phase::AwaitingApproval => state.plan.as_ref().map(|plan| Card::Plan {
                plan,
                unconfined: state.unconfined.as_ref(),
                calls_tools: state.executor_calls_tools,
                comments: self.plan_comments.len(),
            }),
            Phase::Idle => {
                let waiting = state.changes.iter().find(|c| c.status == ChangeStatus::Pending);
                let unverified = || {
                    let note = state.completion.as_ref()?.finalization.as_ref()?;
                    note.waits_for_the_user().then_some(Card::Unverified(note))
                };
                waiting
                    .map(Card::Change)
                    .or_else(|| state.stopped.as_ref().map(Card::Stopped))
                    .or_else(unverified)
            }
            Phase::Planning | Phase::Executing => None,
        }
    }
}

impl App {
    /// Resets the card's chosen row and the input's purpose when another card shows.
    pub fn sync_card(&mut self) {
        let key = self.card().map(|card| card.key()).unwrap_or_default();
        if key != self.card_key {
            self.card_key = key;
            self.selection = 0;
            self.step_cursor = None;
            self.plan_comments.clear();
            self.card_scroll = 0;
            self.form =
                self.elicitations.first().map(|open| open.question.defaults()).unwrap_or_default();
            if self.entry != Entry::Message {
                self.entry = Entry::Message;
                self.clear_input();
            }
        }
    }
}
