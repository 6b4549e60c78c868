//! [`Engine::attention`]: every chat's cards that start waiting and runs that end, as the
//! attention decision (`attention.rs`) finds them, with each chat's title.

use preflight_protocol::ids::ChatId;
use tokio::sync::broadcast::{error::RecvError, Receiver};

use crate::lifecycle::attention::{Attended, Attention, Waiting};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::hub::ChatSignal;
use crate::lifecycle::unconfined::needs_consent;

/// Every chat's attentions from the moment it was made: [`Engine::attention`].
pub struct AttentionStream {
    engine: Engine,
    signals: Receiver<(ChatId, ChatSignal)>,
    attention: Attention,
}

impl AttentionStream {
    /// The next chat that needs the user; `None` once the engine is gone.
    pub async fn next(&mut self) -> Option<Attended> {
        loop {
            let (chat_id, signal) = match self.signals.recv().await {
                Ok(heard) => heard,
                Err(RecvError::Lagged(missed)) => {
                    // What was missed cannot be told apart from what was not: start afresh.
                    tracing::warn!(missed, "the attention stream fell behind");
                    self.attention = Attention::default();
                    continue;
                }
                Err(RecvError::Closed) => return None,
            };
            let Some(waiting) = self.attention.hear(&chat_id, &signal) else { continue };
            if let Some(attended) = self.engine.attended(chat_id, waiting) {
                return Some(attended);
            }
        }
    }
}

impl Engine {
    /// Every chat's cards that start waiting and runs that end, from now on.
    pub fn attention(&self) -> AttentionStream {
        AttentionStream {
            engine: self.clone(),
            signals: self.inner.hub.subscribe_all(),
            attention: Attention::default(),
        }
    }

    /// `waiting` of the chat as it is now: its title, and a plan whose approval needs the
    /// unconfined choice said as such. `None` for a chat deleted meanwhile.
    fn attended(&self, chat_id: ChatId, waiting: Waiting) -> Option<Attended> {
        let chat = self.inner.store.get_chat(&chat_id).ok()?;
        let waiting = match waiting {
            Waiting::Plan if needs_consent(self.inner.confinement.as_deref(), &chat) => {
                Waiting::Unconfined
            }
            other => other,
        };
        Some(Attended { chat_id, title: chat.title, waiting })
    }
}
