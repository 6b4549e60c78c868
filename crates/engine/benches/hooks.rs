//! The user's hooks' overhead per tool call (DESIGN §17, issue 52), a bench binary printing
//! figures (no criterion): what a turn's tool call pays for the hooks around it — asking the
//! `PreToolUse` hooks before and telling the `PostToolUse` ones after — with
//!
//! - **one no-op hook**: `hooks.json` holds one `PreToolUse` hook, `exit 0` (a process
//!   started, fed the call as JSON, waited for);
//! - **a file, no hook for the tool**: `hooks.json` holds hooks of another event only (the
//!   files are looked at: a stat each, read again only when changed);
//! - **no hooks file**: the turn gets no hooks at all, and pays nothing.
//!
//! Run with `cargo bench -p preflight-engine --bench hooks`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use preflight_engine::agent::ToolHooks;
use preflight_engine::chat::ToolCall;
use preflight_engine::hooks::{ChatToolHooks, Hooks};
use preflight_engine::tool::ToolOutput;
use preflight_engine::ChatId;

const RUNS: usize = 500;

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(run());
}

async fn run() {
    let one = r#"{"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"exit 0"}]}]}}"#;
    let other = r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"exit 0"}]}]}}"#;
    println!("hook overhead per tool call ({RUNS} calls each)");
    report("one no-op PreToolUse hook", per_call(Some(one)).await);
    report("a hooks file, no hook for the tool", per_call(Some(other)).await);
    report("no hooks file (no hooks on the turn)", per_call(None).await);
}

/// The time of `before` and `after` around each of [`RUNS`] calls, with `hooks_json` as the
/// user's file.
async fn per_call(hooks_json: Option<&str>) -> Vec<Duration> {
    let home = tempfile::tempdir().unwrap();
    let workspace = tempfile::tempdir().unwrap();
    if let Some(text) = hooks_json {
        std::fs::write(home.path().join("hooks.json"), text).unwrap();
    }
    let hooks = Arc::new(Hooks::open(home.path(), Vec::new()));
    let chat = ChatId::from("bench");
    let call = ToolCall {
        id: "c1".into(),
        name: "mcp_filesystem_read_text_file".into(),
        arguments: r#"{"path":"/w/notes.txt"}"#.into(),
    };
    let output = ToolOutput::ok("the notes");
    let mut times = Vec::with_capacity(RUNS);
    for _ in 0..RUNS {
        let start = Instant::now();
        let turn = ChatToolHooks::for_turn(&hooks, Some(workspace.path().to_owned()));
        if let Some(turn) = &turn {
            std::hint::black_box(turn.before(&chat, &call).await);
            turn.after(&chat, &call, &output).await;
        }
        times.push(start.elapsed());
    }
    times
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    println!("  {what}: p50 {:?}, p99 {:?}", at(0.5), at(0.99));
}
