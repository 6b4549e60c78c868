//! Long runs (DESIGN §13, issue 17): prompt tokens and time per round over a 200-round
//! executor turn whose tool returns 20 KB each round, with the context managed (a 16,000-
//! token window: elision, then compaction) and without (a window larger than the run).
//! Against the scripted server over loopback, with the real store and OpenAI client; the
//! server counts each request's tokens (`count_tokens`) and, for the managed run, enforces
//! the window with the API's real context-length error (its summary calls are answered too).
//!
//! Prints the curve's first and last deciles side by side: managed, both stay flat once the
//! budget is reached; unmanaged, both grow with every round. Run with `cargo bench -p
//! preflight-agent --bench compaction`.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use preflight_agent::events::Event;
use preflight_agent::{
    run_turn, Agent, Availability, ChatLedger, EventSink, RoundRecorder, RoundRule, TaskListSource,
    Tool, ToolContext, ToolRegistry, Turn, TurnMode, TurnScope, SUMMARY_PROMPT,
};
use preflight_llm::{build_provider, ModelMessage, ProviderKind, ProviderSettings};
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_testkit::{count_tokens, Answer, Matcher, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod support;
use support::chat;

const ROUNDS: usize = 200;
const WINDOW: u32 = 16_000;
const OUTPUT_BYTES: usize = 20 * 1024;

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let managed = run(Some(WINDOW)).await;
        let unmanaged = run(None).await;
        report(&managed, &unmanaged);
    });
}

/// Returns 20 KB and notes when each call came.
struct Read {
    calls: Arc<Mutex<Vec<Instant>>>,
}

#[async_trait::async_trait]
impl Tool for Read {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "read".into(),
            description: "Reads the big file.".into(),
            input_schema: json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
        }
    }

    async fn call(&self, _arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        self.calls.lock().unwrap().push(Instant::now());
        let line = "0123456789 the quick brown fox jumps over the lazy dog 0123456789\n";
        ToolOutput::ok(line.repeat(OUTPUT_BYTES / line.len()))
    }
}

/// Per round: the prompt tokens of its request (the server's count) and its time.
struct Curve {
    tokens: Vec<u64>,
    millis: Vec<f64>,
    summaries: usize,
    refused: usize,
}

/// 200 reads and the answer; summary calls answered; the window enforced when managed.
fn script(window: Option<u32>) -> Script {
    let mut replies: Vec<Reply> = (0..ROUNDS)
        .map(|n| {
            Answer::new().text(&format!("Reading {n}. ")).tool_call("read", json!({"n": n})).into()
        })
        .collect();
    replies.push(Reply::text("done"));
    let mut script = Script::new()
        .forever(
            Matcher::system_contains(SUMMARY_PROMPT),
            Reply::text("Summary: the file was read many times."),
        )
        .route(Matcher::default(), replies);
    if let Some(window) = window {
        script = script.context_limit(u64::from(window));
    }
    script
}

async fn run(window: Option<u32>) -> Curve {
    let server = ScriptedServer::start(script(window)).await.unwrap();
    let mut settings = ProviderSettings::new(ProviderKind::OpenAi, server.openai_url(), "bench");
    settings.context_window = Some(window.unwrap_or(100_000_000));
    let provider = build_provider(&settings, None).unwrap();
    let home = tempfile::tempdir().unwrap();
    let (store, chat_id) = chat(home.path());
    let ledger = ChatLedger::new(store, chat_id.clone());
    let calls = Arc::new(Mutex::new(Vec::new()));
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Read { calls: calls.clone() }), Availability::EXECUTOR);
    let tools = registry.offer(&TurnScope { agent: Agent::Executor, task_list: true }).await;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let consumer = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let turn = Turn {
        chat_id: &chat_id,
        provider: provider.as_ref(),
        system: "bench",
        history: vec![ModelMessage::user("read the file over and over")],
        history_ids: Vec::new(),
        tools: &tools,
        mode: TurnMode::Streaming,
        rule: RoundRule::fixed(ROUNDS as u32),
        workspace: None,
        task_list: Some(&ledger as &dyn TaskListSource),
        recorder: Some(&ledger as &dyn RoundRecorder),
        events: &sender as &dyn EventSink,
        hooks: None,
    };
    let started = Instant::now();
    let outcome = run_turn(turn, &CancellationToken::new()).await.unwrap();
    assert_eq!(outcome.rounds as usize, ROUNDS, "the run finished");
    drop(sender);
    consumer.await.unwrap();
    let requests = server.requests();
    let summary = |body: &Value| body.to_string().contains("You summarise");
    let accepted: Vec<u64> = requests
        .iter()
        .filter(|r| !r.too_long && !summary(&r.body))
        .map(|r| count_tokens(&r.body))
        .collect();
    let mut times = vec![started];
    times.extend(calls.lock().unwrap().iter().copied());
    let millis = times.windows(2).map(|pair| (pair[1] - pair[0]).as_secs_f64() * 1e3).collect();
    Curve {
        tokens: accepted.into_iter().take(ROUNDS).collect(),
        millis,
        summaries: requests.iter().filter(|r| summary(&r.body)).count(),
        refused: requests.iter().filter(|r| r.too_long).count(),
    }
}

/// The mean of the first and of the last tenth of `values`.
fn deciles<T: Copy + Into<f64>>(values: &[T]) -> (f64, f64) {
    let tenth = (values.len() / 10).max(1);
    let mean = |part: &[T]| part.iter().map(|&v| v.into()).sum::<f64>() / part.len() as f64;
    (mean(&values[..tenth]), mean(&values[values.len() - tenth..]))
}

fn report(managed: &Curve, unmanaged: &Curve) {
    let tokens =
        |curve: &Curve| deciles(&curve.tokens.iter().map(|&t| t as f64).collect::<Vec<_>>());
    let (m_tokens, u_tokens) = (tokens(managed), tokens(unmanaged));
    let (m_ms, u_ms) = (deciles(&managed.millis), deciles(&unmanaged.millis));
    println!(
        "long run: {ROUNDS} rounds, a {OUTPUT_BYTES}-byte tool output each; first vs last decile"
    );
    println!("                          first decile   last decile   last/first");
    println!(
        "  prompt tokens, managed  {:>12.0}  {:>12.0}   {:>8.2}×   (window {WINDOW}; {} summary calls, {} requests refused)",
        m_tokens.0, m_tokens.1, m_tokens.1 / m_tokens.0, managed.summaries, managed.refused
    );
    println!(
        "  prompt tokens, whole    {:>12.0}  {:>12.0}   {:>8.2}×   (the largest managed request: {} tokens)",
        u_tokens.0,
        u_tokens.1,
        u_tokens.1 / u_tokens.0,
        managed.tokens.iter().max().copied().unwrap_or_default()
    );
    println!(
        "  ms per round, managed   {:>12.2}  {:>12.2}   {:>8.2}×",
        m_ms.0,
        m_ms.1,
        m_ms.1 / m_ms.0
    );
    println!(
        "  ms per round, whole     {:>12.2}  {:>12.2}   {:>8.2}×",
        u_ms.0,
        u_ms.1,
        u_ms.1 / u_ms.0
    );
}
