//! The change stream of a chat's work: each change of its task list, or of the plan it
//! carries out, is said here once as a [`WorkChange`], by whoever made it (the `turn_plan`
//! tool, the answer to a plan change, the turn runner, a restore, *Clear list*, the
//! completion). Whatever keeps something in step with the work listens: the `.dwp` plan
//! folder and its finaliser, in the engine. No emitter names a listener.
//!
//! **Invariant:** a change is emitted once it is made — after the store holds it, where it is
//! stored; a completion just before its record is stored, so that the record carries the
//! finaliser's verdict — and [`WorkStream::emit`] returns when every listener has heard it,
//! in the order they subscribed: a listener hears a chat's changes in the order they
//! happened, and the next change waits for it. What a listener needs the chat to hear comes
//! back in its [`Heard`]; the emitter sends it (only a refused `done`'s failing gate is
//! logged instead: the refusal is what the model must hear then).

use std::sync::{Arc, PoisonError, RwLock};

use preflight_protocol::ids::ChatId;
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{
    Completion, ExecutorStop, FinalizationNote, Gate, PlanChange, TaskList,
};
use tokio_util::sync::CancellationToken;

use crate::events::Event;
use crate::sink::EventSink;

/// One change of a chat's work, as it was stored.
#[derive(Debug, Clone, Copy)]
pub enum WorkChange<'a> {
    /// The executor takes up the approved plan (after the approval, a Continue, a message,
    /// an answered change): `list` as it stands when its turn starts.
    /// `why`: what started the turn, in words ("the user pressed Continue").
    Executing { plan: &'a PlanDocument, list: &'a TaskList, why: &'a str },
    /// The stored task list is now `list`: a `turn_plan` operation.
    Listed { list: &'a TaskList },
    /// A gate ran and did not finish task `task`; the list keeps the task as it was.
    GateFailed { task: u32, gate: &'a Gate },
    /// A plan change waits for the user's answer.
    ChangeAsked { change: &'a PlanChange },
    /// A plan change was answered, by the user or at once by a chat that approves its own:
    /// `before` is the list it applied to, `list` the list now.
    ChangeAnswered { change: &'a PlanChange, before: &'a TaskList, list: &'a TaskList },
    /// An executor turn ended; `why` in a few words.
    TurnEnded { why: &'a str },
    /// The executor stopped with tasks left, and waits for the user.
    Stopped { stop: &'a ExecutorStop },
    /// The workspace and the task list went back to checkpoint `checkpoint`: `list` now.
    Restored { checkpoint: u32, list: &'a TaskList },
    /// The user cleared the task list; `left` is the list as it was.
    Cleared { left: &'a TaskList },
    /// The chat set its plan aside (`why`, in words): the user edited the request it was
    /// made for, and the chat plans again.
    Superseded { why: &'a str },
    /// No step of the plan is left: the completion record, before it is stored (the
    /// finaliser's verdict comes back in [`Heard::finalization`]).
    Completed { list: &'a TaskList, completion: &'a Completion },
}

impl WorkChange<'_> {
    /// The change's name in logs.
    pub fn name(&self) -> &'static str {
        match self {
            WorkChange::Executing { .. } => "executing",
            WorkChange::Listed { .. } => "listed",
            WorkChange::GateFailed { .. } => "gate_failed",
            WorkChange::ChangeAsked { .. } => "change_asked",
            WorkChange::ChangeAnswered { .. } => "change_answered",
            WorkChange::TurnEnded { .. } => "turn_ended",
            WorkChange::Stopped { .. } => "stopped",
            WorkChange::Restored { .. } => "restored",
            WorkChange::Cleared { .. } => "cleared",
            WorkChange::Superseded { .. } => "superseded",
            WorkChange::Completed { .. } => "completed",
        }
    }
}

/// What the listeners made of a change.
#[derive(Debug, Default)]
pub struct Heard {
    /// What the chat must be told (a plan folder that could not follow, a disagreement).
    pub events: Vec<Event>,
    /// The plan folder's finalisation verdict, for [`WorkChange::Completed`].
    pub finalization: Option<FinalizationNote>,
}

impl Heard {
    /// The chat hears `message` as a plan-files `error` event.
    pub fn told(message: Option<String>) -> Heard {
        let mut heard = Heard::default();
        heard.tell(message);
        heard
    }

    /// Adds `message`, when there is one, as a plan-files `error` event.
    pub fn tell(&mut self, message: Option<String>) {
        if let Some(message) = message {
            let code = preflight_protocol::error_code::ErrorCode::PlanFiles;
            self.events.push(Event::Error { code, message });
        }
    }
}

/// Keeps something in step with chats' work.
#[async_trait::async_trait]
pub trait WorkListener: Send + Sync {
    /// Hears one change of `chat_id`'s work. `cancel` is the token of the turn or action
    /// that made it (the chat's Stop ends long work, such as gates run again).
    async fn heard(
        &self,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        cancel: &CancellationToken,
    ) -> Heard;
}

/// The one place a chat's work changes are said; cheap to clone, clones share listeners.
#[derive(Clone, Default)]
pub struct WorkStream {
    listeners: Arc<RwLock<Vec<Arc<dyn WorkListener>>>>,
}

impl WorkStream {
    /// Adds `listener`; it hears every change emitted from now on, after those before it.
    pub fn subscribe(&self, listener: Arc<dyn WorkListener>) {
        self.listeners.write().unwrap_or_else(PoisonError::into_inner).push(listener);
    }

    /// Tells every listener, in turn; what they made of it.
    pub async fn emit(
        &self,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        cancel: &CancellationToken,
    ) -> Heard {
        let listeners = self.listeners.read().unwrap_or_else(PoisonError::into_inner).clone();
        let mut all = Heard::default();
        for listener in listeners {
            let heard = listener.heard(chat_id, change, cancel).await;
            all.events.extend(heard.events);
            all.finalization = all.finalization.or(heard.finalization);
        }
        tracing::debug!(%chat_id, change = change.name(), said = all.events.len(), "work change heard");
        all
    }

    /// [`emit`](Self::emit), with what the listeners said sent to `events`; the verdict.
    pub async fn emit_to(
        &self,
        events: &dyn EventSink,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        cancel: &CancellationToken,
    ) -> Option<FinalizationNote> {
        let heard = self.emit(chat_id, change, cancel).await;
        for event in heard.events {
            events.emit(event);
        }
        heard.finalization
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A listener that writes down what it heard, and says `said` back.
    struct Notes {
        name: &'static str,
        log: Arc<Mutex<Vec<String>>>,
        said: Option<&'static str>,
        verdict: Option<&'static str>,
    }

    #[async_trait::async_trait]
    impl WorkListener for Notes {
        async fn heard(
            &self,
            chat_id: &ChatId,
            change: WorkChange<'_>,
            _cancel: &CancellationToken,
        ) -> Heard {
            self.log.lock().unwrap().push(format!("{} {chat_id} {}", self.name, change.name()));
            let mut heard = Heard::told(self.said.map(str::to_owned));
            heard.finalization = self.verdict.map(|verdict| FinalizationNote {
                verdict: verdict.to_owned(),
                reasons: Vec::new(),
                file: String::new(),
                path: String::new(),
                gates_rerun: 0,
                reopened: Vec::new(),
                dropped_without_user: 0,
                planned: 0,
                accepted_at: None,
            });
            heard
        }
    }

    #[tokio::test]
    async fn every_listener_hears_each_change_in_the_order_it_subscribed() {
        let log = Arc::new(Mutex::new(Vec::new()));
        let stream = WorkStream::default();
        let notes = |name, said, verdict| Notes { name, log: Arc::clone(&log), said, verdict };
        stream.subscribe(Arc::new(notes("folder", Some("could not write"), None)));
        stream.subscribe(Arc::new(notes("hooks", None, Some("VERIFIED"))));
        let clone = stream.clone();
        clone.subscribe(Arc::new(notes("late", Some("second word"), None)));
        let (chat, list) = (ChatId::from("c1"), TaskList::empty());
        let cancel = CancellationToken::new();

        let heard = stream.emit(&chat, WorkChange::Listed { list: &list }, &cancel).await;
        let said: Vec<String> = heard
            .events
            .iter()
            .map(|event| match event {
                Event::Error { message, .. } => message.clone(),
                other => panic!("only plan-files errors are said: {other:?}"),
            })
            .collect();
        assert_eq!(said, ["could not write", "second word"]);
        assert_eq!(heard.finalization.map(|note| note.verdict).as_deref(), Some("VERIFIED"));
        stream.emit(&chat, WorkChange::Cleared { left: &list }, &cancel).await;
        let log = log.lock().unwrap().clone();
        let expected = [
            "folder c1 listed",
            "hooks c1 listed",
            "late c1 listed",
            "folder c1 cleared",
            "hooks c1 cleared",
            "late c1 cleared",
        ];
        assert_eq!(log, expected, "clones share their listeners; each hears in order");
        let nobody = WorkStream::default();
        let quiet = nobody.emit(&chat, WorkChange::TurnEnded { why: "x" }, &cancel).await;
        assert!(quiet.events.is_empty(), "a stream nobody listens to says nothing");
    }
}
