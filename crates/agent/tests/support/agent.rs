//! Set-up for the agent-loop tests: a real store in a temp dir with one chat whose user turn
//! has begun, a scripted server, the real HTTP provider, and small test tools standing in
//! for the MCP host (which is not part of this module).

use std::sync::{Arc, Mutex};

use preflight_agent::events::Event;
use preflight_agent::{
    run_turn, AgentError, ChatLedger, EventSink, OfferedTools, RoundRecorder, RoundRule,
    TaskListSource, Tool, ToolContext, ToolSource, Turn, TurnMode, TurnOutcome,
};
use preflight_llm::{
    build_provider, ApiKey, ModelMessage, Provider, ProviderKind, ProviderSettings, RetryPolicy,
};
use preflight_protocol::chat::{ChatSettings, Message, MessageBody, Phase};
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_protocol::{ChatId, MessageId};
use preflight_store::Store;
use preflight_testkit::{Script, ScriptedServer};
use serde_json::{json, Value};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};
use tokio_util::sync::CancellationToken;

pub const TASK: &str = "Add a CSV export";

pub struct Harness {
    _home: tempfile::TempDir,
    pub store: Arc<Store>,
    pub chat_id: ChatId,
    pub ledger: ChatLedger,
    pub server: ScriptedServer,
    pub provider: Arc<dyn Provider>,
    pub events: UnboundedSender<Event>,
    pub received: UnboundedReceiver<Event>,
}

impl Harness {
    pub async fn new(script: Script) -> Harness {
        Harness::with_kind(script, ProviderKind::OpenAi).await
    }

    pub async fn with_kind(script: Script, kind: ProviderKind) -> Harness {
        let home = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(home.path().join("preflight.db")).unwrap());
        let settings = ChatSettings {
            title: "t".into(),
            workspace: None,
            plan_mode: true,
            auto_approve: false,
            save_plans: false,
            scope: Vec::new(),
        };
        let chat_id = store.create_chat(&settings).unwrap().id;
        let user = Message {
            id: MessageId::new(),
            created_at: preflight_dwp::now_rfc3339(),
            body: MessageBody::User {
                content: TASK.into(),
                files: vec![],
                attachments: vec![],
                plan_answer: false,
                resume: None,
                stopped: None,
                restored: None,
                review: None,
                typed: None,
            },
        };
        store.begin_user_turn(&chat_id, &user, Phase::Executing).unwrap();
        let server = ScriptedServer::start(script).await.unwrap();
        let url = if kind == ProviderKind::OpenAi { server.openai_url() } else { server.url() };
        let mut provider_settings = ProviderSettings::new(kind, url, "scripted-model");
        provider_settings.retry = RetryPolicy::NEVER;
        let provider = build_provider(&provider_settings, Some(ApiKey::new("sk-test"))).unwrap();
        let (events, received) = unbounded_channel();
        let ledger = ChatLedger::new(store.clone(), chat_id.clone());
        Harness { _home: home, store, chat_id, ledger, server, provider, events, received }
    }

    pub fn history(&self) -> Vec<ModelMessage> {
        vec![ModelMessage::user(TASK)]
    }

    /// An executor turn: streaming, stored, with the chat's plan.
    pub fn executor<'a>(
        &'a self,
        system: &'a str,
        tools: &'a OfferedTools,
        max_rounds: u32,
    ) -> Turn<'a> {
        Turn {
            chat_id: &self.chat_id,
            provider: self.provider.as_ref(),
            system,
            history: self.history(),
            history_ids: Vec::new(),
            tools,
            mode: TurnMode::Streaming,
            rule: RoundRule::fixed(max_rounds),
            workspace: None,
            task_list: Some(&self.ledger as &dyn TaskListSource),
            recorder: Some(&self.ledger as &dyn RoundRecorder),
            events: &self.events as &dyn EventSink,
            hooks: None,
        }
    }

    /// A planner turn: quiet, nothing stored, no plan.
    pub fn planner<'a>(&'a self, system: &'a str, tools: &'a OfferedTools) -> Turn<'a> {
        Turn {
            mode: TurnMode::Quiet,
            task_list: None,
            recorder: None,
            ..self.executor(system, tools, 12)
        }
    }

    pub async fn run(&self, turn: Turn<'_>) -> Result<TurnOutcome, AgentError> {
        run_turn(turn, &CancellationToken::new()).await
    }

    /// Every event sent so far.
    pub fn drain_events(&mut self) -> Vec<Event> {
        let mut events = Vec::new();
        while let Ok(event) = self.received.try_recv() {
            events.push(event);
        }
        events
    }

    /// The chat's messages after the user's.
    pub fn stored_after_user(&self) -> Vec<Message> {
        self.store.messages(&self.chat_id).unwrap().into_iter().skip(1).collect()
    }
}

/// Every tool call stored has its result right after its assistant message: no half round.
pub fn assert_whole_rounds(messages: &[Message]) {
    let mut expected: Vec<String> = Vec::new();
    for message in messages {
        match &message.body {
            MessageBody::Tool { tool_call_id, .. } => {
                assert_eq!(
                    expected.first(),
                    Some(tool_call_id),
                    "a tool result out of place in {messages:#?}"
                );
                expected.remove(0);
            }
            MessageBody::Assistant { tool_calls, .. } => {
                assert!(expected.is_empty(), "a round without all its results in {messages:#?}");
                expected = tool_calls.iter().map(|call| call.id.clone()).collect();
            }
            MessageBody::User { .. } | MessageBody::Compaction { .. } => {
                assert!(expected.is_empty())
            }
        }
    }
    assert!(expected.is_empty(), "the last round misses results: {messages:#?}");
}

/// `echo`: returns its arguments.
pub struct Echo;

#[async_trait::async_trait]
impl Tool for Echo {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "echo".into(),
            description: "Returns its input.".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    async fn call(&self, arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        ToolOutput::ok(arguments.to_string())
    }
}

/// `block`: never returns on its own; only a stop ends it.
pub struct Block;

#[async_trait::async_trait]
impl Tool for Block {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "block".into(),
            description: "Waits.".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    async fn call(&self, _arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        std::future::pending().await
    }
}

/// Stands in for the MCP host's planning profile: offers `offered`, records every call.
pub struct ProfileSource {
    pub offered: Vec<&'static str>,
    pub calls: Mutex<Vec<String>>,
}

impl ProfileSource {
    pub fn new(offered: Vec<&'static str>) -> Arc<ProfileSource> {
        Arc::new(ProfileSource { offered, calls: Mutex::new(Vec::new()) })
    }
}

#[async_trait::async_trait]
impl ToolSource for ProfileSource {
    async fn tools(&self) -> Vec<ToolSpec> {
        self.offered
            .iter()
            .map(|name| ToolSpec { name: name.to_string(), description: format!("{name} (test)"), input_schema: json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}) })
            .collect()
    }

    async fn call(&self, name: &str, arguments: Value, _cancel: &CancellationToken) -> ToolOutput {
        self.calls.lock().unwrap().push(name.to_owned());
        ToolOutput::ok(format!("{name} read {arguments}"))
    }
}
