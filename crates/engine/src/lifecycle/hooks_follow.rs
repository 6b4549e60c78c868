//! The hooks of what the chats' streams say (DESIGN §17): `Notification` where the attention
//! stream raises one (`attention.rs`), `Stop` when a turn ends (the chat leaves `planning` or
//! `executing`), `PlanReady`, `PlanApproved` (a plan card left for `executing`), `TaskDone`
//! (a task of a list seen since the engine opened turns done), `PlanCompleted`; and
//! `GateFailed` from the work stream. All told, none awaited by the chat.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::sync::Arc;

use preflight_agent::events::Event;
use preflight_agent::{Heard, WorkChange, WorkListener, WorkStream};
use preflight_protocol::chat::Chat;
use preflight_protocol::chat::Phase;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::TaskStatus;
use preflight_store::Store;
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::error::RecvError;
use tokio_util::sync::CancellationToken;

use crate::hooks::{HookEvent, HookScene, Hooks};
use crate::lifecycle::attention::{Attention, Waiting};
use crate::lifecycle::hub::{ChatSignal, Hub};

/// One event's hooks to run: the event, its subject, its fields.
type Told = (HookEvent, &'static str, Map<String, Value>);

/// Follows every chat's stream for the engine's life (it ends when the hub goes), and hears
/// gates on the work stream.
pub(super) fn follow_hooks(hub: &Hub, store: &Arc<Store>, hooks: &Arc<Hooks>, work: &WorkStream) {
    let (store, hooks) = (Arc::clone(store), Arc::clone(hooks));
    work.subscribe(Arc::new(GateHooks { store: Arc::clone(&store), hooks: Arc::clone(&hooks) }));
    let mut signals = hub.subscribe_all();
    tokio::spawn(async move {
        let mut follow = Follow::default();
        loop {
            let (chat_id, signal) = match signals.recv().await {
                Ok(heard) => heard,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return,
            };
            for (event, subject, fields) in follow.hear(&store, &chat_id, &signal) {
                if let Ok(chat) = store.get_chat(&chat_id) {
                    tell(&hooks, event, subject, &chat, fields);
                }
            }
        }
    });
}

/// Runs `event`'s hooks for `chat` aside (told, never awaited by what it tells of).
pub(super) fn tell(
    hooks: &Arc<Hooks>,
    event: HookEvent,
    subject: &str,
    chat: &Chat,
    fields: Map<String, Value>,
) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    let hooks = Arc::clone(hooks);
    let (chat_id, workspace) = (chat.id.clone(), chat.workspace.clone().map(PathBuf::from));
    let subject = subject.to_owned();
    runtime.spawn(async move {
        let scene = HookScene { chat_id: &chat_id, workspace: workspace.as_deref() };
        hooks.fire(event, &subject, scene, fields).await;
    });
}

/// What the streams said so far, per chat.
#[derive(Default)]
struct Follow {
    attention: Attention,
    phases: HashMap<ChatId, Phase>,
    done: HashMap<ChatId, HashSet<u32>>,
}

impl Follow {
    fn hear(&mut self, store: &Store, chat_id: &ChatId, signal: &ChatSignal) -> Vec<Told> {
        let mut told = Vec::new();
        if let Some(waiting) = self.attention.hear(chat_id, signal) {
            told.push((HookEvent::Notification, kind_of(waiting), notification(waiting)));
        }
        let ChatSignal::Event(event) = signal else { return told };
        match event.as_ref() {
            Event::PlanStatus { phase, .. } => told.extend(self.phase(store, chat_id, *phase)),
            Event::TaskList { tasks } => {
                let done = tasks.iter().filter(|task| task.status == TaskStatus::Done);
                let now: HashSet<u32> = done.clone().map(|task| task.id).collect();
                // The first list seen of a chat is where it stands, not news.
                if let Some(was) = self.done.insert(chat_id.clone(), now) {
                    let new = done.filter(|task| !was.contains(&task.id));
                    told.extend(
                        new.map(|task| (HookEvent::TaskDone, "", fields("task", json!(task)))),
                    );
                }
            }
            Event::Completion { completion } => {
                told.push((HookEvent::PlanCompleted, "", fields("completion", json!(completion))));
            }
            _ => {}
        }
        told
    }

    /// A new phase: a turn's end, a plan card, an approval.
    fn phase(&mut self, store: &Store, chat_id: &ChatId, phase: Phase) -> Vec<Told> {
        let was = self.phases.insert(chat_id.clone(), phase);
        if was == Some(phase) {
            return Vec::new();
        }
        let working = |phase| matches!(phase, Some(Phase::Planning | Phase::Executing));
        let mut told = Vec::new();
        if working(was) && !working(Some(phase)) {
            told.push((HookEvent::Stop, "", fields("phase", json!(phase))));
        }
        let plan = || {
            let plan = store.state(chat_id).ok().and_then(|state| state.plan);
            fields("plan", json!(plan))
        };
        match (was, phase) {
            (_, Phase::AwaitingApproval) => told.push((HookEvent::PlanReady, "", plan())),
            (Some(Phase::AwaitingApproval), Phase::Executing) => {
                told.push((HookEvent::PlanApproved, "", plan()))
            }
            _ => {}
        }
        told
    }
}

fn fields(name: &str, value: Value) -> Map<String, Value> {
    let mut fields = Map::new();
    fields.insert(name.to_owned(), value);
    fields
}

/// The notification's kind (what a `Notification` matcher matches) and its words.
fn notification(waiting: Waiting) -> Map<String, Value> {
    let message = match waiting {
        Waiting::Questions => "The planner has questions for you",
        Waiting::Plan => "A plan waits for your approval",
        Waiting::Unconfined => "A plan waits for your approval to run unconfined",
        Waiting::PlanChange => "The executor asks to change the plan",
        Waiting::Elicitation => "An MCP server asks you something",
        Waiting::Stopped => "The work stopped with tasks left",
        Waiting::Done => "The work is done",
        Waiting::Unverified => "The plan finished, not verified",
        Waiting::Failed => "The run failed",
    };
    let mut told = fields("notification_type", kind_of(waiting).into());
    told.insert("message".into(), message.into());
    told
}

fn kind_of(waiting: Waiting) -> &'static str {
    match waiting {
        Waiting::Questions => "questions",
        Waiting::Plan => "plan",
        Waiting::Unconfined => "unconfined",
        Waiting::PlanChange => "plan_change",
        Waiting::Elicitation => "elicitation",
        Waiting::Stopped => "stopped",
        Waiting::Done => "done",
        Waiting::Unverified => "unverified",
        Waiting::Failed => "failed",
    }
}

/// `GateFailed` from the work stream, where gates are said.
struct GateHooks {
    store: Arc<Store>,
    hooks: Arc<Hooks>,
}

#[async_trait::async_trait]
impl WorkListener for GateHooks {
    async fn heard(
        &self,
        chat_id: &ChatId,
        change: WorkChange<'_>,
        _: &CancellationToken,
    ) -> Heard {
        let WorkChange::GateFailed { task, gate } = change else { return Heard::default() };
        if let Ok(chat) = self.store.get_chat(chat_id) {
            let mut told = fields("task", task.into());
            told.insert("gate".into(), json!(gate));
            tell(&self.hooks, HookEvent::GateFailed, "", &chat, told);
        }
        Heard::default()
    }
}
