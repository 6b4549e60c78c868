//! Per-chat runtime state that does not belong in the store: the event stream subscribers
//! listen to, the stream of every chat at once (what the desktop notifications and the
//! terminal's bell follow: `attention.rs`), and the one turn that may run in a chat at a time.
//!
//! **Invariant:** at most one turn per chat is registered; the mutex guards plain maps and
//! is never held across an `.await`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use preflight_agent::events::Event;
use preflight_protocol::ids::ChatId;
use tokio::sync::{broadcast, watch};
use tokio_util::sync::CancellationToken;

/// Events a slow subscriber may lag behind before it misses some (it is told it lagged).
const EVENT_BUFFER: usize = 4096;
/// The same for the stream of every chat, which carries no tokens.
const ALL_CHATS_BUFFER: usize = 1024;

/// What the stream of every chat carries: a chat's event (its tokens left out), or that a
/// client asked the chat's turn to stop (its end is then no news to anyone).
#[derive(Debug, Clone)]
pub enum ChatSignal {
    Event(Box<Event>),
    StopAsked,
}

/// A running turn: how to stop it and how to know it has finished.
#[derive(Clone)]
pub struct TurnHandle {
    pub cancel: CancellationToken,
    /// Turns true when the turn's task has stored its last step.
    pub finished: watch::Receiver<bool>,
    pub kind: TurnKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnKind {
    Planner,
    Executor,
}

/// The guard a turn's task holds; dropping it unregisters the turn and wakes waiters.
pub struct TurnGuard {
    hub: Arc<Hub>,
    chat_id: ChatId,
    finished: watch::Sender<bool>,
    pub cancel: CancellationToken,
}

impl Drop for TurnGuard {
    fn drop(&mut self) {
        self.hub.lock_turns().remove(&self.chat_id);
        let _ = self.finished.send(true);
    }
}

pub struct Hub {
    streams: Mutex<HashMap<ChatId, broadcast::Sender<Event>>>,
    all: broadcast::Sender<(ChatId, ChatSignal)>,
    turns: Mutex<HashMap<ChatId, TurnHandle>>,
}

impl Default for Hub {
    fn default() -> Hub {
        Hub {
            streams: Mutex::default(),
            all: broadcast::channel(ALL_CHATS_BUFFER).0,
            turns: Mutex::default(),
        }
    }
}

impl Hub {
    /// Sends `event` to the chat's subscribers and, unless it is a token, to those of every
    /// chat (none listening is fine).
    pub fn emit(&self, chat_id: &ChatId, event: Event) {
        if self.all.receiver_count() > 0 && !matches!(event, Event::Delta { .. }) {
            let _ = self.all.send((chat_id.clone(), ChatSignal::Event(Box::new(event.clone()))));
        }
        if let Some(sender) = lock(&self.streams).get(chat_id) {
            let _ = sender.send(event);
        }
    }

    pub fn subscribe(&self, chat_id: &ChatId) -> broadcast::Receiver<Event> {
        let mut streams = lock(&self.streams);
        let sender =
            streams.entry(chat_id.clone()).or_insert_with(|| broadcast::channel(EVENT_BUFFER).0);
        sender.subscribe()
    }

    /// Every chat's events from now on but tokens, with the stops clients asked for.
    pub fn subscribe_all(&self) -> broadcast::Receiver<(ChatId, ChatSignal)> {
        self.all.subscribe()
    }

    /// Forgets a deleted chat's stream (its subscribers see the stream end).
    pub fn forget(&self, chat_id: &ChatId) {
        lock(&self.streams).remove(chat_id);
    }

    /// Registers a new turn for `chat_id`, or `None` when one is already running.
    pub fn begin_turn(self: &Arc<Self>, chat_id: &ChatId, kind: TurnKind) -> Option<TurnGuard> {
        let mut turns = self.lock_turns();
        if turns.contains_key(chat_id) {
            return None;
        }
        let cancel = CancellationToken::new();
        let (finished_sender, finished) = watch::channel(false);
        turns.insert(chat_id.clone(), TurnHandle { cancel: cancel.clone(), finished, kind });
        Some(TurnGuard {
            hub: Arc::clone(self),
            chat_id: chat_id.clone(),
            finished: finished_sender,
            cancel,
        })
    }

    pub fn turn(&self, chat_id: &ChatId) -> Option<TurnHandle> {
        self.lock_turns().get(chat_id).cloned()
    }

    /// Every chat whose turn runs now, with the turn's kind.
    pub fn running(&self) -> Vec<(ChatId, TurnKind)> {
        self.lock_turns().iter().map(|(chat_id, turn)| (chat_id.clone(), turn.kind)).collect()
    }

    pub fn is_turn_active(&self, chat_id: &ChatId) -> bool {
        self.lock_turns().contains_key(chat_id)
    }

    /// Cancels the chat's turn, if any, and waits until its task has finished.
    pub async fn stop_turn(&self, chat_id: &ChatId) {
        let Some(mut turn) = self.turn(chat_id) else { return };
        let _ = self.all.send((chat_id.clone(), ChatSignal::StopAsked));
        turn.cancel.cancel();
        let _ = turn.finished.wait_for(|finished| *finished).await;
    }

    fn lock_turns(&self) -> MutexGuard<'_, HashMap<ChatId, TurnHandle>> {
        lock(&self.turns)
    }
}

impl TurnGuard {
    pub fn chat_id(&self) -> &ChatId {
        &self.chat_id
    }

    /// Moves this guard's registration to another kind of turn (planner → executor)
    /// without ever leaving the chat without a registered turn.
    pub fn set_kind(&self, kind: TurnKind) {
        if let Some(turn) = self.hub.lock_turns().get_mut(&self.chat_id) {
            turn.kind = kind;
        }
    }
}

/// The maps hold plain data: a panic elsewhere cannot leave them half-updated.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}
