//! The lifecycle's own overhead (issue 5), a bench binary printing figures (no criterion):
//!
//! - **Planner turn**: from `Engine::send` of a chat's first message to the question card's
//!   `message` event, with a scripted provider on loopback that answers at once, the real
//!   filesystem MCP server behind the planning profile, and the SQLite commits.
//! - **Approve to first token**: from `Engine::approve_plan` to the executor's first `delta`.
//!
//! Both against the bare HTTP round trip to the same scripted server (reqwest sending the
//! same kind of request and reading the whole answer): the difference is the engine's.
//! Run with `cargo bench -p preflight-engine --bench lifecycle`. Goal: p50 under 5 ms.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use preflight_engine::config::KeyLookup;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{Engine, EngineOptions, NewChat};
use preflight_engine::mcp::McpOptions;
use preflight_testkit::{Answer, Matcher, Reply, Script, ScriptedServer};
use serde_json::json;
use tokio::sync::broadcast::Receiver;

const RUNS: usize = 200;

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(run());
}

fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
        ))
    })
}

fn questions_reply() -> Reply {
    Reply::text("```plan-questions\n{\"questions\":[{\"id\":\"q1\",\"question\":\"Which?\",\"options\":[\"a\",\"b\",\"c\"]}]}\n```")
}

fn plan_reply() -> Reply {
    Reply::text("```plan\n{\"title\":\"T\",\"aim\":\"A\",\"steps\":[{\"action\":\"one\",\"expected\":\"done\"}],\"libraries\":[],\"sandbox\":{\"policy\":\"create\",\"notes\":\"\"}}\n```")
}

async fn run() {
    let script = Script::new()
        .forever(Matcher::body_contains("BENCH-QUESTIONS"), questions_reply())
        .forever(Matcher::system_contains("plan-questions"), plan_reply())
        .forever(Matcher::default(), Answer::new().words("on it").into());
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"bench\"\n",
        provider.openai_url()
    );
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    let options = EngineOptions {
        home: home.path().to_owned(),
        mcp: McpOptions::new(home.path(), fs_server()),
        keys: KeyLookup::new(Vec::new(), |_| None),
        local_models: None,
        program: "preflight test".to_owned(),
        home_lock: None,
    };
    let engine = Engine::open(options).await.unwrap();
    let bare = bare_round_trips(&provider.openai_url()).await;
    let workspace = workspace.path().to_str().unwrap().to_owned();
    // Warm-up: the filesystem server starts on the first use (its spawn is not overhead).
    planner_turn(&engine, &workspace).await;
    let mut planner = Vec::new();
    let mut approve = Vec::new();
    for _ in 0..RUNS {
        planner.push(planner_turn(&engine, &workspace).await);
        approve.push(approve_to_first_token(&engine, &workspace).await);
    }
    report("planner turn: send → question card", &mut planner, &bare);
    report("approve → first executor token", &mut approve, &bare);
    engine.shutdown().await;
}

/// One chat: its first message, timed until the question card arrives.
async fn planner_turn(engine: &Engine, workspace: &str) -> Duration {
    let chat = engine
        .create_chat(NewChat { workspace: Some(workspace.to_owned()), ..NewChat::default() })
        .unwrap();
    let mut events = engine.subscribe(&chat.id).unwrap();
    let start = Instant::now();
    engine.send(&chat.id, "BENCH-QUESTIONS please", Vec::new()).unwrap();
    wait(&mut events, |event| matches!(event, Event::Message { message } if message.role() == preflight_engine::chat::Role::Assistant)).await;
    let elapsed = start.elapsed();
    wait(&mut events, |event| matches!(event, Event::PlanStatus { .. })).await;
    elapsed
}

/// One chat planned up to its card, then timed from approval to the first token.
async fn approve_to_first_token(engine: &Engine, workspace: &str) -> Duration {
    let chat = engine
        .create_chat(NewChat { workspace: Some(workspace.to_owned()), ..NewChat::default() })
        .unwrap();
    let mut events = engine.subscribe(&chat.id).unwrap();
    engine.send(&chat.id, "plan it", Vec::new()).unwrap();
    wait(&mut events, |event| matches!(event, Event::PlanStatus { phase, .. } if phase.as_str() == "awaiting_approval")).await;
    let start = Instant::now();
    engine.approve_plan(&chat.id).unwrap();
    wait(&mut events, |event| matches!(event, Event::Delta { .. })).await;
    let elapsed = start.elapsed();
    wait(
        &mut events,
        |event| matches!(event, Event::PlanStatus { phase, .. } if phase.as_str() == "idle"),
    )
    .await;
    elapsed
}

async fn wait(events: &mut Receiver<Event>, wanted: impl Fn(&Event) -> bool) {
    loop {
        let event = tokio::time::timeout(Duration::from_secs(30), events.recv())
            .await
            .expect("an event in time")
            .expect("the stream");
        if wanted(&event) {
            return;
        }
    }
}

/// The same kind of request the planner sends, straight to the scripted server.
async fn bare_round_trips(base_url: &str) -> Vec<Duration> {
    let client = reqwest::Client::new();
    let body = json!({"model": "bench", "stream": true, "messages": [{"role": "user", "content": "BENCH-QUESTIONS"}]});
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let start = Instant::now();
        let request = client
            .post(format!("{base_url}/chat/completions"))
            .header("content-type", "application/json");
        let response = request.body(body.to_string()).send().await.unwrap();
        response.bytes().await.unwrap();
        times.push(start.elapsed());
    }
    times
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn report(name: &str, times: &mut [Duration], bare: &[Duration]) {
    times.sort();
    let mut bare = bare.to_vec();
    bare.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    let (p50, p99) = (percentile(times, 0.5), percentile(times, 0.99));
    let bare50 = percentile(&bare, 0.5);
    println!(
        "{name:<40} p50 {:>7.2} ms  p99 {:>7.2} ms  (bare HTTP round trip p50 {:.2} ms; engine's share p50 {:.2} ms)",
        ms(p50),
        ms(p99),
        ms(bare50),
        ms(p50.saturating_sub(bare50))
    );
}
