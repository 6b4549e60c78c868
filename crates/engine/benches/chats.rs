//! A year of chats (issue 33), a bench binary printing figures (no criterion): a store of
//! 10,000 chats with 50 messages each (English and Russian words), opened by the engine.
//!
//! - **First page** of the chat list (`Engine::chat_page`, 50 chats) against the whole list
//!   (`Engine::list_chats`, what `GET /v1/chats` answered before), with the JSON sizes.
//! - **Search** (`Engine::search`, 20 hits) for common and rare words, Russian ones and a
//!   word still being typed (prefix).
//! - **Opening a 5,000-message chat** (`Engine::chat_view`: the latest 100 messages) against
//!   the whole chat (every message, what the view held before), and a page further back.
//!
//! Run with `cargo bench -p preflight-engine --bench chats`. Goals: first page p50 < 5 ms,
//! a search p50 < 20 ms, the long chat's first page < 50 ms.

use std::time::{Duration, Instant};

use preflight_engine::chat::{ChatSettings, Message, MessageBody};
use preflight_engine::config::KeyLookup;
use preflight_engine::lifecycle::{Engine, EngineOptions};
use preflight_engine::mcp::McpOptions;
use preflight_engine::store::Store;
use preflight_engine::{ChatId, MessageId};

const CHATS: usize = 10_000;
const MESSAGES_PER_CHAT: usize = 50;
const LONG_CHAT: usize = 5_000;
const RUNS: usize = 100;

const WORDS: &[&str] = &[
    "report",
    "export",
    "orders",
    "march",
    "sales",
    "invoice",
    "deploy",
    "server",
    "database",
    "migration",
    "index",
    "query",
    "window",
    "sidebar",
    "test",
    "build",
    "release",
    "budget",
    "отчёт",
    "продажи",
    "заказы",
    "сервер",
    "база",
    "данных",
    "индекс",
    "запрос",
    "окно",
    "выпуск",
    "бюджет",
    "проверка",
    "the",
    "a",
    "of",
    "and",
    "to",
    "in",
    "и",
    "в",
    "на",
    "с",
];

fn main() {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(run());
}

async fn run() {
    let home = tempfile::tempdir().unwrap();
    let start = Instant::now();
    let long_chat = fill(&Store::open(home.path().join("preflight.db")).unwrap());
    println!(
        "store: {CHATS} chats × {MESSAGES_PER_CHAT} messages + one of {LONG_CHAT}, written in {:.1} s",
        start.elapsed().as_secs_f64()
    );
    let engine = open_engine(home.path()).await;
    chat_list(&engine);
    search(&engine);
    long_chat_view(&engine, &long_chat);
    engine.shutdown().await;
}

/// Deterministic text: `count` words from a small linear congruential generator.
fn text(seed: &mut u64, count: usize) -> String {
    let mut words = Vec::with_capacity(count);
    for _ in 0..count {
        *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let pick = (*seed >> 33) as usize;
        // A rare word now and then: w0 … w4999.
        if pick.is_multiple_of(7) {
            words.push(format!("w{}", pick % 5000));
        } else {
            words.push(WORDS[pick % WORDS.len()].to_owned());
        }
    }
    words.join(" ")
}

fn message(seed: &mut u64, n: usize) -> Message {
    let content = text(seed, 30);
    let body = if n.is_multiple_of(2) {
        MessageBody::User {
            content,
            files: vec![],
            attachments: vec![],
            plan_answer: false,
            resume: None,
            stopped: None,
            restored: None,
            review: None,
            typed: None,
        }
    } else {
        MessageBody::Assistant {
            content,
            questions: None,
            plan: None,
            tool_calls: vec![],
            notice: None,
        }
    };
    Message { id: MessageId::new(), created_at: preflight_engine::now_rfc3339(), body }
}

fn settings(title: String) -> ChatSettings {
    ChatSettings {
        title,
        workspace: None,
        plan_mode: false,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    }
}

/// The 10,000 chats (100 to a transaction), then the long one; returns the long one's id.
fn fill(store: &Store) -> ChatId {
    let mut seed = 7;
    for _ in 0..CHATS / 100 {
        store
            .write(|tx| {
                for _ in 0..100 {
                    let chat = tx.insert_chat(&settings(text(&mut seed, 4)))?;
                    for n in 0..MESSAGES_PER_CHAT {
                        tx.insert_message(&chat.id, &message(&mut seed, n))?;
                    }
                }
                Ok(())
            })
            .unwrap();
    }
    store
        .write(|tx| {
            let chat = tx.insert_chat(&settings("The long one".into()))?;
            for n in 0..LONG_CHAT {
                tx.insert_message(&chat.id, &message(&mut seed, n))?;
            }
            Ok(chat.id)
        })
        .unwrap()
}

async fn open_engine(home: &std::path::Path) -> Engine {
    let config =
        "[provider]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"bench\"\n";
    std::fs::write(home.join("config.toml"), config).unwrap();
    let options = EngineOptions {
        home: home.to_owned(),
        mcp: McpOptions::new(home, home.join("no-fs-server.js")),
        keys: KeyLookup::new(Vec::new(), |_| None),
        local_models: None,
        program: "preflight bench".to_owned(),
        home_lock: None,
    };
    Engine::open(options).await.unwrap()
}

fn chat_list(engine: &Engine) {
    let first = engine.chat_page(None, None).unwrap();
    let all = engine.list_chats().unwrap();
    println!(
        "chat list: first page {} chats, {} KB of JSON; the whole list {} chats, {} KB",
        first.data.len(),
        json_kb(&first),
        all.len(),
        json_kb(&all)
    );
    report("first page (50 chats)", time(|| drop(engine.chat_page(None, None).unwrap())));
    let mut cursor = first.next_cursor.clone();
    for _ in 0..100 {
        cursor = engine.chat_page(None, cursor.as_deref()).unwrap().next_cursor;
    }
    report(
        "page 101 (by cursor)",
        time(|| drop(engine.chat_page(None, cursor.as_deref()).unwrap())),
    );
    report("the whole list (before)", time(|| drop(engine.list_chats().unwrap())));
}

fn search(engine: &Engine) {
    let queries =
        ["sales report", "отчёт продажи", "w1234", "w4321 deploy", "прове", "migr", "budget w77"];
    let mut every = Vec::new();
    for query in queries {
        let hits = engine.search(query, None, None).unwrap().data.len();
        let times = time(|| drop(engine.search(query, None, None).unwrap()));
        every.extend(times.iter().copied());
        report(&format!("search {query:?} ({hits} hits)"), times);
    }
    report("search, every query above", every);
}

fn long_chat_view(engine: &Engine, chat: &ChatId) {
    let view = engine.chat_view(chat).unwrap();
    let whole = engine.message_page(chat, None, Some(500)).unwrap();
    println!(
        "long chat: the view holds {} messages ({} KB of JSON with its state)",
        view.messages.len(),
        json_kb(&view)
    );
    report(
        "open the 5,000-message chat (latest page)",
        time(|| drop(engine.chat_view(chat).unwrap())),
    );
    let cursor = view.messages_cursor.clone();
    report(
        "its next page back",
        time(|| drop(engine.message_page(chat, cursor.as_deref(), None).unwrap())),
    );
    let from = view.messages.first().unwrap().id.clone();
    report(
        "the view from a message 100 back",
        time(|| drop(engine.chat_view_from(chat, Some(&from)).unwrap())),
    );
    let mut before = whole.next_cursor.clone();
    let mut every = whole.data;
    while let Some(cursor) = before {
        let page = engine.message_page(chat, Some(&cursor), Some(500)).unwrap();
        every.splice(0..0, page.data);
        before = page.next_cursor;
    }
    println!("  (every message of it: {} KB of JSON)", json_kb(&every));
}

fn time(mut run: impl FnMut()) -> Vec<Duration> {
    run();
    (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect()
}

fn report(what: &str, mut times: Vec<Duration>) {
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q) as usize].as_secs_f64() * 1000.0;
    println!("{what}: p50 {:.2} ms, p95 {:.2} ms, max {:.2} ms", at(0.5), at(0.95), at(1.0));
}

/// The size of an answer's JSON, as an adapter sends it, in KB.
fn json_kb(value: &impl serde::Serialize) -> usize {
    serde_json::to_string(value).unwrap().len() / 1000
}
