//! How the lifecycle tells subscribers what changed: stored messages, phases, the task list.

use preflight_agent::events::Event;
use preflight_protocol::chat::{Message, MessageBody, Phase};
use preflight_protocol::ids::ChatId;

use crate::lifecycle::engine::{Engine, Inner};

/// The status line shown for each phase ("Drafting a plan…" while the planner works).
pub fn phase_text(phase: Phase) -> &'static str {
    match phase {
        Phase::Planning => "Drafting a plan…",
        Phase::Questions => "Waiting for your answers",
        Phase::AwaitingApproval => "Waiting for your approval",
        Phase::Executing => "Working…",
        Phase::Idle => "",
    }
}

/// The `plan_status` event of a phase.
pub(super) fn phase_event(phase: Phase) -> Event {
    Event::PlanStatus { phase, text: phase_text(phase).to_owned() }
}

impl Engine {
    pub(super) fn emit(&self, chat_id: &ChatId, event: Event) {
        self.inner.hub.emit(chat_id, event);
    }

    pub(super) fn emit_phase(&self, chat_id: &ChatId, phase: Phase) {
        self.inner.emit_phase(chat_id, phase);
    }

    /// A message that was just stored, then the phase it left the chat in.
    pub(super) fn announce(&self, chat_id: &ChatId, message: &Message, phase: Phase) {
        self.emit(chat_id, Event::Message { message: message.clone() });
        self.emit_phase(chat_id, phase);
    }

    /// The chat's whole task list as it is stored now.
    pub(super) fn emit_task_list(&self, chat_id: &ChatId) {
        if let Ok(list) = self.inner.store.task_list(chat_id) {
            self.emit(chat_id, Event::TaskList { tasks: list.tasks });
        }
    }

    /// The plan card again, after its plan changed (approval, an edit).
    pub(super) fn emit_plan_card(&self, chat_id: &ChatId) {
        self.emit_card(chat_id, |body| {
            matches!(body, MessageBody::Assistant { plan: Some(_), .. })
        });
    }

    /// The latest stored message whose body `is_card`, as a `message` event.
    pub(super) fn emit_card(&self, chat_id: &ChatId, is_card: impl Fn(&MessageBody) -> bool) {
        let Ok(messages) = self.inner.store.messages(chat_id) else { return };
        if let Some(card) = messages.into_iter().rev().find(|message| is_card(&message.body)) {
            self.emit(chat_id, Event::Message { message: card });
        }
    }
}

impl Inner {
    pub(super) fn emit_phase(&self, chat_id: &ChatId, phase: Phase) {
        self.hub.emit(chat_id, phase_event(phase));
    }
}
