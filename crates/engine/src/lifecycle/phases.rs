//! Every chat's phase as it changes, for a list of chats that shows which ones work now
//! (DESIGN §18: several chats run at once): the chats running when asked
//! ([`Engine::running_chats`]), then each change ([`Engine::phase_changes`]).

use preflight_agent::events::Event;
use preflight_protocol::chat::Phase;
use preflight_protocol::ids::ChatId;
use serde::Serialize;
use tokio::sync::broadcast::{error::RecvError, Receiver};

use crate::lifecycle::engine::Engine;
use crate::lifecycle::hub::{ChatSignal, TurnKind};

/// A chat's phase.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatPhase {
    pub chat_id: ChatId,
    pub phase: Phase,
}

/// Every chat's phase changes from the moment it was made.
pub struct PhaseStream {
    signals: Receiver<(ChatId, ChatSignal)>,
}

impl PhaseStream {
    /// The next change; `None` once the engine is gone. After falling behind it says so
    /// with `Lagged`, and the reader asks [`Engine::running_chats`] again.
    pub async fn next(&mut self) -> Option<Result<ChatPhase, Lagged>> {
        loop {
            match self.signals.recv().await {
                Ok((chat_id, ChatSignal::Event(event))) => {
                    if let Event::PlanStatus { phase, .. } = *event {
                        return Some(Ok(ChatPhase { chat_id, phase }));
                    }
                }
                Ok(_) => {}
                Err(RecvError::Lagged(_)) => return Some(Err(Lagged)),
                Err(RecvError::Closed) => return None,
            }
        }
    }
}

/// Changes were missed: read the running chats again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lagged;

impl Engine {
    /// Every chat's phase changes from now on.
    pub fn phase_changes(&self) -> PhaseStream {
        PhaseStream { signals: self.inner.hub.subscribe_all() }
    }

    /// The chats whose turn runs now: planning or executing.
    pub fn running_chats(&self) -> Vec<ChatPhase> {
        let mut running: Vec<ChatPhase> = self
            .inner
            .hub
            .running()
            .into_iter()
            .map(|(chat_id, kind)| ChatPhase {
                chat_id,
                phase: match kind {
                    TurnKind::Planner => Phase::Planning,
                    TurnKind::Executor => Phase::Executing,
                },
            })
            .collect();
        running.sort_by(|a, b| a.chat_id.as_str().cmp(b.chat_id.as_str()));
        running
    }
}
