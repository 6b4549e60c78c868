//! Chats in their own worktrees at once (issue 54, DESIGN §18), a bench binary printing
//! figures (no criterion): three chats on one git repository, each in a worktree of its own,
//! each carrying out a scripted 20-round plan (10 steps: write a file through the real
//! filesystem MCP server, then close the task with `turn_plan`), first one after the other,
//! then all three at once. It prints the wall time of each way and their ratio, and checks
//! that every chat's files are in its own worktree and none in the user's checkout.
//!
//! The scripted model begins each answer after `--latency-ms` (250 by default), as a model
//! takes time to answer; `--latency-ms 0` measures the engine alone.
//! Run with `cargo bench -p preflight-engine --bench worktrees [-- --latency-ms N]`.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use preflight_engine::chat::Phase;
use preflight_engine::config::KeyLookup;
use preflight_engine::events::Event;
use preflight_engine::ids::ChatId;
use preflight_engine::lifecycle::{Engine, EngineOptions, NewChat};
use preflight_engine::mcp::McpOptions;
use preflight_testkit::{Answer, Matcher, Reply, Script, ScriptedServer};
use serde_json::json;

const CHATS: usize = 3;
const STEPS: usize = 10;

fn main() {
    let latency = latency_ms();
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(run(latency));
}

fn latency_ms() -> u64 {
    let args: Vec<String> = std::env::args().collect();
    let at = args.iter().position(|arg| arg == "--latency-ms");
    at.and_then(|at| args.get(at + 1)).map_or(250, |n| n.parse().expect("--latency-ms N"))
}

fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
        ))
    })
}

fn git(dir: &Path, args: &[&str]) {
    let out = Command::new("git")
        .args(["-c", "user.name=b", "-c", "user.email=b@example.invalid"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
}

async fn run(latency: u64) {
    let repo = tempfile::tempdir().unwrap();
    git(repo.path(), &["init", "-q", "-b", "main"]);
    std::fs::write(repo.path().join("README.md"), "# Bench\n").unwrap();
    git(repo.path(), &["add", "."]);
    git(repo.path(), &["commit", "-q", "-m", "start"]);
    let provider = ScriptedServer::start(Script::new().latency_ms(latency)).await.unwrap();
    let home = tempfile::tempdir().unwrap();
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
        program: "preflight bench".to_owned(),
        home_lock: None,
    };
    let engine = Engine::open(options).await.unwrap();
    let serial_chats = prepare(&engine, &provider, repo.path(), "serial").await;
    let started = Instant::now();
    for chat in &serial_chats {
        carry_out(&engine, chat).await;
    }
    let serial = started.elapsed();
    let together = prepare(&engine, &provider, repo.path(), "together").await;
    let started = Instant::now();
    futures_util::future::join_all(together.iter().map(|chat| carry_out(&engine, chat))).await;
    let at_once = started.elapsed();
    for chat in serial_chats.iter().chain(&together) {
        check_files(chat, repo.path());
    }
    report(latency, serial, at_once);
    engine.shutdown().await;
}

/// A chat ready to be carried out: its id, its task and its worktree folder.
struct BenchChat {
    id: ChatId,
    task: String,
    folder: PathBuf,
}

/// Three chats in their own worktrees, with their plans and runs scripted.
async fn prepare(
    engine: &Engine,
    provider: &ScriptedServer,
    repo: &Path,
    batch: &str,
) -> Vec<BenchChat> {
    let mut chats = Vec::new();
    for n in 1..=CHATS {
        let request = NewChat {
            workspace: Some(repo.to_string_lossy().into_owned()),
            worktree: Some(true),
            save_plans: Some(false),
            ..NewChat::default()
        };
        let chat = engine.new_chat(request).await.unwrap();
        let folder = PathBuf::from(&chat.worktree.as_ref().unwrap().path);
        let (task, title) = (format!("bench task {batch} {n}"), format!("Bench plan {batch} {n}"));
        provider.add_route_first(Matcher::body_contains(&task), [plan_reply(&title)]);
        provider.add_route_first(Matcher::body_contains(&title), executor(&folder));
        chats.push(BenchChat { id: chat.id, task, folder });
    }
    chats
}

/// The planner's plan of `STEPS` steps.
fn plan_reply(title: &str) -> Reply {
    let steps: Vec<_> = (1..=STEPS)
        .map(|n| json!({"action": format!("Write part {n}"), "expected": format!("part{n}.txt exists")}))
        .collect();
    let plan = json!({"title": title, "aim": "parts written", "steps": steps, "libraries": [],
        "sandbox": {"policy": "create", "notes": ""}});
    Reply::text(&format!("```plan\n{plan}\n```"))
}

/// Two rounds a step (write the part, close its task), then the final answer.
fn executor(folder: &Path) -> Vec<Reply> {
    let mut replies = Vec::new();
    for n in 1..=STEPS {
        let path = folder.join(format!("part{n}.txt"));
        let write = json!({"path": path, "content": format!("part {n}\n")});
        replies.push(Answer::new().tool_call("mcp_filesystem_write_file", write).into());
        let done = json!({"op": "done", "id": n, "outcome": format!("part {n} written")});
        replies.push(Answer::new().tool_call("turn_plan", done).into());
    }
    replies.push(Reply::text("Every part is written."));
    replies
}

/// Sends the chat's task, approves its plan and waits for the executor's turn to end.
async fn carry_out(engine: &Engine, chat: &BenchChat) {
    let mut events = engine.subscribe(&chat.id).unwrap();
    engine.send(&chat.id, &chat.task, Vec::new()).unwrap();
    wait_for_phase(&mut events, Phase::AwaitingApproval).await;
    engine.approve_plan(&chat.id).unwrap();
    wait_for_phase(&mut events, Phase::Idle).await;
}

async fn wait_for_phase(events: &mut tokio::sync::broadcast::Receiver<Event>, wanted: Phase) {
    let waited = tokio::time::timeout(Duration::from_secs(300), async {
        loop {
            if let Event::PlanStatus { phase, .. } = events.recv().await.unwrap() {
                if phase == wanted {
                    return;
                }
            }
        }
    });
    waited.await.expect("the chat to reach its phase");
}

/// Every part in the chat's own worktree; none in the user's checkout.
fn check_files(chat: &BenchChat, repo: &Path) {
    for n in 1..=STEPS {
        let name = format!("part{n}.txt");
        assert!(chat.folder.join(&name).is_file(), "{} lacks {name}", chat.folder.display());
        assert!(!repo.join(&name).exists(), "{name} reached the user's checkout");
    }
}

fn report(latency: u64, serial: Duration, at_once: Duration) {
    let rounds = CHATS * (2 * STEPS + 1);
    println!("worktrees: {CHATS} chats × {} executor rounds (+ a planner call each), model latency {latency} ms", 2 * STEPS + 1);
    println!("  one after the other: {:>7.2} s", serial.as_secs_f64());
    println!("  all at once:         {:>7.2} s", at_once.as_secs_f64());
    println!(
        "  ratio:               {:>7.2}× ({rounds} rounds)",
        serial.as_secs_f64() / at_once.as_secs_f64()
    );
}
