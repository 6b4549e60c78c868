//! Export and import of a long chat (DESIGN §15), a bench binary printing figures (no
//! criterion): one chat of 5,000 messages as an executor leaves them (its rounds' tool calls,
//! their results of about 2 KB, the user's messages now and then), exported as JSON and as
//! Markdown into a file and imported again, each against the whole chat read at once and
//! serialised (what an export that held the chat in memory would cost).
//!
//! Each step runs in a child process of this binary, so its peak memory (`VmHWM`) is its own;
//! a child that only opens the store gives the floor every step stands on. Best time of 3.
//! Run with `cargo bench -p preflight-engine --bench export`.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::process::Command;
use std::time::Instant;

use preflight_engine::chat::{ChatSettings, Message, MessageBody, ToolCall};
use preflight_engine::lifecycle::{export_chat, import_chat, ExportFormat, DATABASE_FILE};
use preflight_engine::store::Store;
use preflight_engine::{ChatId, MessageId};

const MESSAGES: usize = 5_000;
const RUNS: usize = 3;
const STEPS: [(&str, &str); 5] = [
    ("floor", "the store opened, nothing read"),
    ("json", "JSON export into a file, streamed"),
    ("markdown", "Markdown export into a file, streamed"),
    ("whole", "the whole chat read at once and serialised (for comparison)"),
    ("import", "import of the JSON export, one transaction"),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|arg| arg != "--bench").collect();
    match args.as_slice() {
        [step, home, chat] => child(step, Path::new(home), &ChatId::from(chat.as_str())),
        _ => parent(),
    }
}

fn parent() {
    let home = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let store = Store::open(home.path().join(DATABASE_FILE)).unwrap();
    let chat = seed(&store);
    drop(store);
    println!("one chat of {MESSAGES} messages, written in {:.1} s", start.elapsed().as_secs_f64());
    println!("| step | best of {RUNS} | peak RSS | above the floor | bytes |");
    println!("|---|---:|---:|---:|---:|");
    let mut floor = 0;
    for (step, what) in STEPS {
        let runs: Vec<(f64, u64, u64)> =
            (0..RUNS).map(|_| run_child(step, home.path(), &chat)).collect();
        let best = runs.iter().map(|run| run.0).fold(f64::MAX, f64::min);
        let peak = runs.iter().map(|run| run.1).max().unwrap_or(0);
        if step == "floor" {
            floor = peak;
        }
        let written = runs[0].2;
        println!(
            "| {what} | {best:.0} ms | {:.1} MB | {:.1} MB | {:.2} MB |",
            peak as f64 / 1024.0,
            peak.saturating_sub(floor) as f64 / 1024.0,
            written as f64 / 1e6
        );
    }
}

/// Runs `step` in a child: (milliseconds, peak RSS in kB, bytes written).
fn run_child(step: &str, home: &Path, chat: &ChatId) -> (f64, u64, u64) {
    let exe = std::env::current_exe().unwrap();
    let output =
        Command::new(exe).args([step, &home.to_string_lossy(), chat.as_str()]).output().unwrap();
    assert!(output.status.success(), "{step}: {}", String::from_utf8_lossy(&output.stderr));
    let line = String::from_utf8(output.stdout).unwrap();
    let fields: Vec<&str> = line.split_whitespace().collect();
    (fields[0].parse().unwrap(), fields[1].parse().unwrap(), fields[2].parse().unwrap())
}

/// One step, timed, its peak memory and what it wrote printed on one line.
fn child(step: &str, home: &Path, chat: &ChatId) {
    let database = home.join(DATABASE_FILE);
    let file = home.join(format!("export-{step}-{}", std::process::id()));
    let start = Instant::now();
    match step {
        "floor" => drop(Store::open_read_only(&database).unwrap()),
        "json" | "markdown" => {
            let store = Store::open_read_only(&database).unwrap();
            export_into(&store, chat, ExportFormat::parse(step).unwrap(), &file);
        }
        "whole" => {
            let store = Store::open_read_only(&database).unwrap();
            let snapshot = store.snapshot(chat).unwrap();
            std::fs::write(&file, serde_json::to_vec(&snapshot).unwrap()).unwrap();
        }
        "import" => {
            // The file to import is written by the first run, and timed by none.
            let source = home.join("import-source.json");
            if !source.exists() {
                let store = Store::open_read_only(&database).unwrap();
                export_into(&store, chat, ExportFormat::Json, &source);
            }
            let start = Instant::now();
            let store = Store::open(&database).unwrap();
            import_chat(&store, home, &mut std::fs::File::open(&source).unwrap()).unwrap();
            let bytes = std::fs::metadata(&source).unwrap().len();
            println!("{:.1} {} {bytes}", start.elapsed().as_secs_f64() * 1000.0, peak_kb());
            return;
        }
        other => panic!("no step {other}"),
    }
    let elapsed = start.elapsed().as_secs_f64() * 1000.0;
    let bytes = std::fs::metadata(&file).map(|meta| meta.len()).unwrap_or(0);
    let _ = std::fs::remove_file(&file);
    println!("{elapsed:.1} {} {bytes}", peak_kb());
}

fn export_into(store: &Store, chat: &ChatId, format: ExportFormat, file: &Path) {
    let mut out = BufWriter::new(std::fs::File::create(file).unwrap());
    export_chat(store, chat, format, &mut out).unwrap();
    out.flush().unwrap();
}

/// This process's peak resident memory (`VmHWM`), in kB.
fn peak_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let line = status.lines().find(|line| line.starts_with("VmHWM:")).unwrap_or("VmHWM: 0 kB");
    line.split_whitespace().nth(1).and_then(|kb| kb.parse().ok()).unwrap_or(0)
}

/// The long chat: every 50th message the user's, the others an executor's rounds (a tool
/// call, then its result of about 2 KB).
fn seed(store: &Store) -> ChatId {
    let settings = ChatSettings {
        title: "A long executor run".into(),
        workspace: None,
        plan_mode: false,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    };
    store
        .write(|tx| {
            let chat = tx.insert_chat(&settings)?;
            for n in 0..MESSAGES {
                tx.insert_message(&chat.id, &message(n))?;
            }
            Ok(chat.id)
        })
        .unwrap()
}

fn message(n: usize) -> Message {
    let words = |count: usize| {
        (0..count)
            .map(|i| ["rows", "report", "parser", "check", "<b>", "csv"][(n + i) % 6])
            .collect::<Vec<_>>()
            .join(" ")
    };
    let body = match n % 50 {
        0 => MessageBody::User {
            content: words(40),
            files: vec![],
            attachments: vec![],
            plan_answer: false,
            resume: None,
            stopped: None,
            restored: None,
            review: None,
            typed: None,
        },
        k if k % 2 == 1 => MessageBody::Assistant {
            content: words(20),
            questions: None,
            plan: None,
            tool_calls: vec![ToolCall {
                id: format!("call_{n}"),
                name: "mcp_filesystem_read_text_file".into(),
                arguments: format!(r#"{{"path":"src/part_{n}.rs"}}"#),
            }],
            notice: None,
        },
        _ => MessageBody::Tool {
            tool_call_id: format!("call_{}", n - 1),
            name: "mcp_filesystem_read_text_file".into(),
            content: words(320),
            is_error: false,
            attachments: Vec::new(),
        },
    };
    Message { id: MessageId::new(), created_at: preflight_engine::now_rfc3339(), body }
}
