//! Benchmarks of the agent loop's own overhead, measured against the scripted server over
//! loopback (a bench binary printing figures, no criterion).
//!
//! - **Relay**: one answer of N text tokens, from the server through the OpenAI client and
//!   the loop to the event sink (a channel drained by another task), against the bare
//!   transfer of the same bytes (reqwest reading the body, no parsing) for the same request.
//! - **Round trip**: a turn of R tool rounds (10: a typical turn; 200: a long one, whose
//!   requests carry a long history) (a trivial tool) with the real store (each round
//!   one SQLite transaction, the task list read for the `[state]` tail), against replaying
//!   the very request bodies the loop sent, one after another, with bare reqwest.
//!
//! - **Progress probe**: the workspace fingerprint an executor round takes to tell whether it
//!   changed the workspace (`agent::fingerprint`), on trees of 1,000 and 10,000 files.
//!
//! The difference is what the engine adds: request building, SSE decoding, tool-call
//! assembly, dispatch, events, persistence. Run with `cargo bench -p preflight-agent --bench
//! agent`. Goals (issue 3): under 1 ms added per round trip, over 50,000 tokens/s relayed.

use std::sync::Arc;
use std::time::{Duration, Instant};

use preflight_agent::events::Event;
use preflight_agent::{
    run_turn, Agent, Availability, ChatLedger, EventSink, RoundRecorder, RoundRule, TaskListSource,
    Tool, ToolContext, ToolRegistry, Turn, TurnMode, TurnScope,
};
use preflight_llm::{build_provider, ModelMessage, Provider, ProviderKind, ProviderSettings};
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_testkit::{Answer, Matcher, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

mod support;
use support::chat;

const TOKENS: usize = 50_000;
const RUNS: usize = 5;

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    fingerprints();
    runtime.block_on(async {
        relay().await;
        for rounds in [10, 200] {
            round_trips(rounds, true).await;
            round_trips(rounds, false).await;
        }
    });
}

/// The progress probe's cost per round on trees of `files` files (100 to a folder).
fn fingerprints() {
    println!("progress probe (workspace fingerprint per executor round; median of {RUNS}):");
    for files in [1_000usize, 10_000] {
        let tree = tempfile::tempdir().unwrap();
        for n in 0..files {
            let dir = tree.path().join(format!("d{}", n / 100));
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(dir.join(format!("f{n}.txt")), "x").unwrap();
        }
        let samples: Vec<Duration> = (0..RUNS)
            .map(|_| {
                let started = Instant::now();
                std::hint::black_box(preflight_agent::fingerprint(tree.path()));
                started.elapsed()
            })
            .collect();
        let per_round = median(samples);
        println!(
            "  {files:>6} files                               {:>9.1} µs per round ({:.2} µs a file)",
            per_round.as_secs_f64() * 1e6,
            per_round.as_secs_f64() * 1e6 / files as f64
        );
    }
}

struct Noop;

#[async_trait::async_trait]
impl Tool for Noop {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "noop".into(),
            description: "Does nothing.".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    async fn call(&self, _arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        ToolOutput::ok("ok")
    }
}

fn provider(server: &ScriptedServer) -> Arc<dyn Provider> {
    build_provider(&ProviderSettings::new(ProviderKind::OpenAi, server.openai_url(), "bench"), None)
        .unwrap()
}

/// Replays `bodies` one after another with bare reqwest, reading every byte of each answer.
async fn replay(url: &str, bodies: &[Value]) -> Duration {
    let client = reqwest::Client::new();
    let started = Instant::now();
    for body in bodies {
        let mut response = client
            .post(url)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        while response.chunk().await.unwrap().is_some() {}
    }
    started.elapsed()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

async fn relay() {
    let answer: Reply = (0..TOKENS)
        .fold(Answer::new(), |answer, n| answer.text(if n % 2 == 0 { "tok" } else { "en " }))
        .into();
    let script = Script::new().forever(Matcher::default(), answer);
    let (mut looped, mut bare) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let server = ScriptedServer::start(script.clone()).await.unwrap();
        let (elapsed, deltas) = relay_once(&server).await;
        assert_eq!(deltas, TOKENS, "every token reached the sink");
        looped.push(elapsed);
        let body = server.requests()[0].body.clone();
        bare.push(replay(&format!("{}/chat/completions", server.openai_url()), &[body]).await);
    }
    let (looped, bare) = (median(looped), median(bare));
    let per_token = (looped.as_secs_f64() - bare.as_secs_f64()) / TOKENS as f64;
    println!("relay ({TOKENS} tokens, one OpenAI-format chunk each; median of {RUNS}):");
    println!(
        "  bare HTTP transfer of the same answer      {:>9.1} ms  {:>12.0} tokens/s",
        ms(bare),
        TOKENS as f64 / bare.as_secs_f64()
    );
    println!(
        "  loop: provider → loop → event sink         {:>9.1} ms  {:>12.0} tokens/s  {:>5.2}× bare",
        ms(looped),
        TOKENS as f64 / looped.as_secs_f64(),
        looped.as_secs_f64() / bare.as_secs_f64()
    );
    println!(
        "  engine's own cost per token                {:>9.2} µs  {:>12.0} tokens/s (engine alone)",
        per_token * 1e6,
        1.0 / per_token.max(1e-12)
    );
}

/// One streaming turn that relays the whole answer; returns its time and the deltas seen.
async fn relay_once(server: &ScriptedServer) -> (Duration, usize) {
    let home = tempfile::tempdir().unwrap();
    let (store, chat_id) = chat(home.path());
    let ledger = ChatLedger::new(store, chat_id.clone());
    let provider = provider(server);
    let tools =
        ToolRegistry::new().offer(&TurnScope { agent: Agent::Executor, task_list: false }).await;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let consumer = tokio::spawn(async move {
        let mut deltas = 0;
        while let Some(event) = receiver.recv().await {
            deltas += matches!(event, Event::Delta { .. }) as usize;
        }
        deltas
    });
    let turn = Turn {
        chat_id: &chat_id,
        provider: provider.as_ref(),
        system: "bench",
        history: vec![ModelMessage::user("go")],
        history_ids: Vec::new(),
        tools: &tools,
        mode: TurnMode::Streaming,
        rule: RoundRule::fixed(1),
        workspace: None,
        task_list: None,
        recorder: Some(&ledger as &dyn RoundRecorder),
        events: &sender as &dyn EventSink,
        hooks: None,
    };
    let started = Instant::now();
    run_turn(turn, &CancellationToken::new()).await.unwrap();
    drop(sender);
    let deltas = consumer.await.unwrap();
    (started.elapsed(), deltas)
}

async fn round_trips(rounds: usize, with_store: bool) {
    let mut replies: Vec<Reply> =
        (0..rounds).map(|n| Reply::tool_call("noop", json!({"n": n}))).collect();
    replies.push(Reply::text("done"));
    let (mut looped, mut bare) = (Vec::new(), Vec::new());
    let runs = if rounds < 50 { 4 * RUNS } else { RUNS };
    for _ in 0..runs {
        let server = ScriptedServer::start(Script::replies(replies.clone())).await.unwrap();
        looped.push(round_trips_once(&server, rounds, with_store).await);
        let bodies: Vec<Value> =
            server.requests().into_iter().map(|request| request.body).collect();
        assert_eq!(bodies.len(), rounds + 1);
        let again = ScriptedServer::start(Script::replies(replies.clone())).await.unwrap();
        bare.push(replay(&format!("{}/chat/completions", again.openai_url()), &bodies).await);
    }
    let calls = (rounds + 1) as f64;
    let (looped, bare) = (median(looped), median(bare));
    let what = if with_store {
        "with the store: a transaction per round, the plan read per call"
    } else {
        "without store or plan"
    };
    println!("round trips ({rounds} tool rounds + the answer, {what}; median of {runs}):");
    println!(
        "  bare HTTP replay of the same requests      {:>9.1} µs per call",
        bare.as_secs_f64() * 1e6 / calls
    );
    println!(
        "  loop round trip                            {:>9.1} µs per call  {:>5.2}× bare",
        looped.as_secs_f64() * 1e6 / calls,
        looped.as_secs_f64() / bare.as_secs_f64()
    );
    let added = (looped.as_secs_f64() - bare.as_secs_f64()) * 1e6 / calls;
    let note = if added < 0.0 { " (below zero: within the noise)" } else { "" };
    println!("  added by the engine                        {added:>9.1} µs per round trip{note}");
}

async fn round_trips_once(server: &ScriptedServer, rounds: usize, with_store: bool) -> Duration {
    let home = tempfile::tempdir().unwrap();
    let (store, chat_id) = chat(home.path());
    let ledger = ChatLedger::new(store, chat_id.clone());
    let provider = provider(server);
    let mut registry = ToolRegistry::new();
    registry.register(Arc::new(Noop), Availability::EXECUTOR);
    let tools = registry.offer(&TurnScope { agent: Agent::Executor, task_list: true }).await;
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel::<Event>();
    let consumer = tokio::spawn(async move { while receiver.recv().await.is_some() {} });
    let turn = Turn {
        chat_id: &chat_id,
        provider: provider.as_ref(),
        system: "bench",
        history: vec![ModelMessage::user("go")],
        history_ids: Vec::new(),
        tools: &tools,
        mode: TurnMode::Streaming,
        rule: RoundRule::fixed(rounds as u32),
        workspace: None,
        task_list: with_store.then_some(&ledger as &dyn TaskListSource),
        recorder: with_store.then_some(&ledger as &dyn RoundRecorder),
        events: &sender as &dyn EventSink,
        hooks: None,
    };
    let started = Instant::now();
    let outcome = run_turn(turn, &CancellationToken::new()).await.unwrap();
    let elapsed = started.elapsed();
    assert_eq!(outcome.rounds as usize, rounds);
    drop(sender);
    consumer.await.unwrap();
    elapsed
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
