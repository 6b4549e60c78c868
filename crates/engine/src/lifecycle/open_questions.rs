//! The servers' questions open right now (MCP elicitation), in memory only: each waits for
//! the user's answer while its tool call waits, and a stopped turn cancels its own.
//!
//! **Invariant:** a question is in the map exactly while someone may still answer it; the
//! mutex guards a plain map and is never held across an `.await`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use preflight_agent::events::{Elicitation, Event};
use preflight_mcp::{Answer, Asker, Question};
use preflight_protocol::ids::ChatId;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use crate::lifecycle::hub::Hub;

pub(crate) struct Waiting {
    pub(super) chat_id: ChatId,
    pub(super) question: Question,
    pub(super) reply: oneshot::Sender<Answer>,
}

/// Every open question of the engine.
#[derive(Default)]
pub(crate) struct Elicitations {
    pub(super) waiting: Mutex<HashMap<String, Waiting>>,
}

impl Elicitations {
    fn open(&self, chat_id: &ChatId, question: Question) -> (String, oneshot::Receiver<Answer>) {
        let id = format!("el_{}", uuid::Uuid::new_v4().simple());
        let (reply, answer) = oneshot::channel();
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.insert(id.clone(), Waiting { chat_id: chat_id.clone(), question, reply });
        }
        (id, answer)
    }

    fn close(&self, id: &str) -> Option<Waiting> {
        self.waiting.lock().ok()?.remove(id)
    }
}

/// The asker of one execution call: the chat's card.
pub(crate) struct ChatAsker {
    pub elicitations: Arc<Elicitations>,
    pub hub: Arc<Hub>,
    pub chat_id: ChatId,
    /// The call's token: a stopped turn cancels the question.
    pub cancel: CancellationToken,
}

#[async_trait::async_trait]
impl Asker for ChatAsker {
    async fn ask(&self, question: Question) -> Answer {
        let (id, answer) = self.elicitations.open(&self.chat_id, question.clone());
        let shown = Elicitation { id: id.clone(), question };
        self.hub.emit(&self.chat_id, Event::Elicitation { elicitation: shown });
        let answer = tokio::select! {
            answer = answer => answer.unwrap_or(Answer::Cancel),
            () = self.cancel.cancelled() => {
                self.elicitations.close(&id);
                Answer::Cancel
            }
        };
        let action = match &answer {
            Answer::Accept { .. } => "accept",
            Answer::Decline => "decline",
            Answer::Cancel => "cancel",
        };
        self.hub.emit(&self.chat_id, Event::ElicitationClosed { id, action: action.to_owned() });
        answer
    }

    fn owner(&self) -> Option<String> {
        Some(self.chat_id.to_string())
    }
}
