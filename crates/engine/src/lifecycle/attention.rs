//! What needs the user, in any chat: a card that starts waiting (questions, the plan, the
//! unconfined choice, a plan change, an MCP server's question) or a run that ended (done,
//! finished unverified, stopped with tasks left, failed). The desktop shell raises a
//! notification for each while its window is not in front, `preflight chat` rings the
//! terminal's bell (DESIGN §15 "Notice"), the user's `Notification` hooks run; all follow the
//! decision made here once (`Engine::attention` is `attention_stream.rs`).
//!
//! **Invariant:** one attention per card and per run's end: a card re-sent (an edit, an
//! approval's re-render) or a phase said again is no news, nor is the end of a turn a client
//! asked to stop; a chat's state at start-up is never news (only what happens after
//! `Engine::attention` is called is heard). Read from the events alone, in their order, so
//! the decision is a pure function of them ([`Attention::hear`]), tested with the sequences
//! the lifecycle emits.

use std::collections::{HashMap, HashSet};

use preflight_agent::events::Event;
use preflight_protocol::chat::{MessageBody, Phase};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{ChangeStatus, Completion, StopReason};

use crate::lifecycle::hub::ChatSignal;

/// What waits for the user.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Waiting {
    /// The planner's questions.
    Questions,
    /// The plan, for approval.
    Plan,
    /// The plan, whose approval needs the user's "Run unconfined" (DESIGN §11).
    Unconfined,
    /// The executor asks to change the approved plan.
    PlanChange,
    /// An MCP server asks the user something (a form or a page to open).
    Elicitation,
    /// The executor stopped with tasks left: the stop card.
    Stopped,
    /// The run finished: the plan's steps all done (verified), or the answer given.
    Done,
    /// The plan finished, not verified: the completion card offers the checks again.
    Unverified,
    /// The run failed (the provider, the planner, the store).
    Failed,
}

/// A chat that needs the user, and what for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attended {
    pub chat_id: ChatId,
    /// The chat's title as it is now.
    pub title: String,
    pub waiting: Waiting,
}

/// Follows every chat's events and says when one needs the user: [`Attention::hear`].
#[derive(Debug, Default)]
pub(crate) struct Attention {
    chats: HashMap<ChatId, Track>,
}

/// What one chat's events said so far.
#[derive(Debug, Default)]
struct Track {
    /// The last phase heard; none before the first.
    phase: Option<Phase>,
    /// How the running turn ends, as far as its events said.
    ending: Option<Ending>,
    /// The plan changes and server questions already said.
    asked: HashSet<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Completed {
        verified: bool,
    },
    Stopped(StopReason),
    Failed,
    /// A client asked the turn to stop: its end is the user's own doing.
    StopAsked,
}

impl Attention {
    /// What `signal` of `chat_id` makes wait for the user, if anything newly does.
    pub fn hear(&mut self, chat_id: &ChatId, signal: &ChatSignal) -> Option<Waiting> {
        let track = self.chats.entry(chat_id.clone()).or_default();
        match signal {
            ChatSignal::StopAsked => {
                track.ending = Some(Ending::StopAsked);
                None
            }
            ChatSignal::Event(event) => track.hear(event),
        }
    }
}

impl Track {
    fn hear(&mut self, event: &Event) -> Option<Waiting> {
        match event {
            Event::PlanStatus { phase, .. } => self.enter(*phase),
            Event::Message { message } => {
                match &message.body {
                    // A new message of the user's (a Continue included) starts what follows.
                    MessageBody::User { .. } => self.ending = None,
                    MessageBody::Assistant { notice: Some(notice), .. } if !notice.went_on() => {
                        self.end(Ending::Failed)
                    }
                    // The turn went on after an error: it did not end there.
                    MessageBody::Assistant { .. } if self.ending == Some(Ending::Failed) => {
                        self.ending = None
                    }
                    _ => {}
                }
                None
            }
            Event::ExecutorStopped { stopped } => {
                self.end(Ending::Stopped(stopped.reason));
                None
            }
            Event::Completion { completion } => {
                self.end(Ending::Completed { verified: verified(completion) });
                None
            }
            Event::Error { code, .. } if ends_turn(*code) => {
                self.end(Ending::Failed);
                None
            }
            Event::PlanChange { change } => match change.status {
                ChangeStatus::Pending => self.asked(change.id.to_string(), Waiting::PlanChange),
                _ => {
                    self.asked.remove(&change.id.to_string());
                    None
                }
            },
            Event::Elicitation { elicitation } => {
                self.asked(elicitation.id.clone(), Waiting::Elicitation)
            }
            Event::ElicitationClosed { id, .. } => {
                self.asked.remove(id);
                None
            }
            _ => None,
        }
    }

    /// A new phase: a card that starts waiting, or the end of a run.
    fn enter(&mut self, phase: Phase) -> Option<Waiting> {
        let was = self.phase.replace(phase);
        if was == Some(phase) {
            return None;
        }
        match phase {
            Phase::Questions => Some(Waiting::Questions),
            Phase::AwaitingApproval => Some(Waiting::Plan),
            Phase::Planning | Phase::Executing => {
                if !matches!(was, Some(Phase::Planning | Phase::Executing)) {
                    self.ending = None;
                }
                None
            }
            Phase::Idle => match self.ending.take() {
                Some(Ending::StopAsked | Ending::Stopped(StopReason::UserStop)) => None,
                Some(Ending::Stopped(_)) => Some(Waiting::Stopped),
                Some(Ending::Completed { verified: true }) => Some(Waiting::Done),
                Some(Ending::Completed { verified: false }) => Some(Waiting::Unverified),
                Some(Ending::Failed) => Some(Waiting::Failed),
                // The executor's answer; a planner that settled without a card was cancelled.
                None => (was == Some(Phase::Executing)).then_some(Waiting::Done),
            },
        }
    }

    /// How the running turn ends; a stop asked for stays the last word.
    fn end(&mut self, ending: Ending) {
        if self.ending != Some(Ending::StopAsked) {
            self.ending = Some(ending);
        }
    }

    /// `waiting` the first time `id` is asked.
    fn asked(&mut self, id: String, waiting: Waiting) -> Option<Waiting> {
        self.asked.insert(id).then_some(waiting)
    }
}

/// Errors a turn goes on after (a checkpoint or the plan files not written, an MCP server
/// missing): said in the chat, not the end of the run.
fn ends_turn(code: ErrorCode) -> bool {
    !matches!(
        code,
        ErrorCode::Checkpoint
            | ErrorCode::PlanFiles
            | ErrorCode::McpNotInstalled
            | ErrorCode::McpSignIn
            | ErrorCode::Unconfined
    )
}

/// Whether the plan finished verified (or in a chat that keeps no plan folder to verify).
fn verified(completion: &Completion) -> bool {
    completion.finalization.as_ref().is_none_or(|note| note.verdict == "VERIFIED")
}

#[cfg(test)]
#[path = "attention_tests.rs"]
mod tests;
