//! The embedded model's figures, per installed catalog model, each model in a process of its
//! own (so that peak memory is that model's):
//! - load time;
//! - prompt and generation tokens/s on a ~512-token prompt with 128 tokens to generate (the
//!   shape of llama.cpp's `llama-bench -p 512 -n 128`, its own ceiling to compare with);
//! - a planner turn under the grammar: prompt and generation tokens/s, whole time;
//! - first message → card through the engine's lifecycle (median of three messages);
//! - peak memory (`VmHWM`);
//! - generation speed while another process keeps one core busy, at the adaptive thread
//!   count and at fixed 1 and 2 threads, against the idle speed.
//!
//! `cargo bench -p preflight-embedded --bench embedded` (release), or the binary that
//! `scripts/test.sh` compiles under target/debug/deps (llama.cpp is an optimised build in
//! both). Needs the models installed (`preflight model fetch [--model gemma3]`).

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use preflight_embedded::catalog::{self, CatalogModel};
use preflight_embedded::{EmbeddedModel, GenerateOptions, Generation, LlamaModels, Threads};
use preflight_engine::chat::Phase;
use preflight_engine::config::KeyLookup;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{Engine, EngineOptions, NewChat};
use preflight_engine::llm::{ModelMessage, ModelRequest, OutputConstraint};
use preflight_engine::mcp::McpOptions;
use preflight_engine::planner::{
    parse_planner_reply, planner_system_prompt, PlannerFacts, ReplyKind, DEFAULT_PLANNER_PROMPT,
};
use tokio_util::sync::CancellationToken;

const CARD_MESSAGES: [&str; 3] = [
    "Build a CLI todo app that stores tasks in SQLite.",
    "Write a Python script that renames all .jpg files in a folder by their date taken.",
    "Make a website for my bakery with a menu page and opening hours.",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).filter(|arg| arg != "--bench").collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--spin"] => spin(),
        ["--model", id] => one_model(id),
        ["--busy-core", id] => busy_core(id),
        ["--speed", id, threads] => speed(id, threads.parse().expect("a thread count")),
        _ => all(),
    }
}

fn models_dir() -> std::path::PathBuf {
    catalog::models_dir(|name| std::env::var_os(name)).expect("HOME is set")
}

fn installed() -> Vec<&'static CatalogModel> {
    catalog::MODELS.iter().filter(|model| models_dir().join(model.file_name).is_file()).collect()
}

/// Every installed model in a child process, then the busy-core run on each.
fn all() {
    let models = installed();
    if models.is_empty() {
        eprintln!(
            "no embedded model installed in {}: run `preflight model fetch`",
            models_dir().display()
        );
        return;
    }
    println!("embedded model benchmark — {} cores, load average {}", cores(), load_average());
    for model in &models {
        run_child(&["--model", model.id]);
    }
    for model in &models {
        run_child(&["--busy-core", model.id]);
    }
}

fn run_child(args: &[&str]) {
    let status = Command::new(std::env::current_exe().unwrap())
        .args(args)
        .status()
        .expect("the bench runs itself");
    assert!(status.success(), "{args:?} failed");
}

fn one_model(id: &str) {
    let model = catalog::find(id).expect("a catalog id");
    let path = models_dir().join(model.file_name);
    let started = Instant::now();
    let loaded = Arc::new(EmbeddedModel::load(&path, model.name).expect("the model loads"));
    let load = started.elapsed();
    println!("\n## {} — {}", model.name, path.display());
    println!("load                      {:>8.0} ms", ms(load));

    let free = median_run(&loaded, &long_prompt_request(), 128, Threads::Adaptive, 3);
    println!(
        "pp~512 / tg128 (adaptive) prompt {:>7.1} tok/s ({} tokens)   generation {:>6.1} tok/s ({} tokens, {} threads)",
        free.stats.prompt_tokens_per_second(),
        free.stats.prompt_tokens,
        free.stats.output_tokens_per_second(),
        free.stats.output_tokens,
        free.stats.threads
    );

    let (planner, reply) = planner_run(&loaded);
    let parsed = parse_planner_reply(&reply);
    let kind = match parsed.kind {
        ReplyKind::Questions(_) => "questions",
        ReplyKind::Plan(_) => "plan",
        ReplyKind::None => "NEITHER",
    };
    println!(
        "planner turn (grammar)    prompt {:>7.1} tok/s ({} tokens)   generation {:>6.1} tok/s ({} tokens)   whole {:>6.0} ms → {kind}",
        planner.stats.prompt_tokens_per_second(),
        planner.stats.prompt_tokens,
        planner.stats.output_tokens_per_second(),
        planner.stats.output_tokens,
        ms(planner.stats.prompt_time + planner.stats.output_time),
    );
    println!("  its reply: {}", reply.replace('\n', "⏎"));
    drop(loaded);

    let card_times = first_message_to_card(id);
    let mut sorted = card_times.clone();
    sorted.sort();
    println!(
        "first message → card      median {:>6.0} ms   (each: {})",
        ms(sorted[sorted.len() / 2]),
        card_times.iter().map(|time| format!("{:.0} ms", ms(*time))).collect::<Vec<_>>().join(", ")
    );
    println!("peak memory (VmHWM)       {:>8} MB", peak_rss_kb() / 1024);
}

/// Tokens per run of the busy-core comparison (two threads on a shared core crawl).
const BUSY_TOKENS: u32 = 64;

/// Generation speed with one core kept busy by another process, against idle.
fn busy_core(id: &str) {
    let model = catalog::find(id).expect("a catalog id");
    let loaded = Arc::new(
        EmbeddedModel::load(&models_dir().join(model.file_name), model.name)
            .expect("the model loads"),
    );
    let request = long_prompt_request();
    let idle: Vec<(String, f64)> = [Threads::Fixed(2), Threads::Fixed(1), Threads::Adaptive]
        .into_iter()
        .map(|threads| {
            (
                label(threads),
                median_run(&loaded, &request, BUSY_TOKENS, threads, 3)
                    .stats
                    .output_tokens_per_second(),
            )
        })
        .collect();
    let mut spinner = Command::new(std::env::current_exe().unwrap())
        .arg("--spin")
        .stdout(Stdio::null())
        .spawn()
        .expect("the spinner starts");
    std::thread::sleep(Duration::from_millis(300));
    let busy: Vec<(String, f64, usize)> = [Threads::Fixed(2), Threads::Fixed(1), Threads::Adaptive]
        .into_iter()
        .map(|threads| {
            let run = median_run(&loaded, &request, BUSY_TOKENS, threads, 3);
            (label(threads), run.stats.output_tokens_per_second(), run.stats.threads)
        })
        .collect();
    let _ = spinner.kill();
    let _ = spinner.wait();
    println!("\n## {} — generation with one core busy (another process spinning)", model.name);
    let idle_best = idle.iter().map(|(_, speed)| *speed).fold(0.0, f64::max);
    for ((name, idle_speed), (_, busy_speed, threads)) in idle.iter().zip(&busy) {
        println!(
            "{name:<9} idle {idle_speed:>6.1} tok/s   busy {busy_speed:>6.1} tok/s ({threads} threads)   busy/idle-best {:.2}",
            busy_speed / idle_best
        );
    }
}

/// Only the ~512-token prompt and 128 generated tokens at a fixed thread count: the run to
/// put beside `llama-bench -p 512 -n 128 -t THREADS` on the same model file.
fn speed(id: &str, threads: usize) {
    let model = catalog::find(id).expect("a catalog id");
    let loaded = EmbeddedModel::load(&models_dir().join(model.file_name), model.name)
        .expect("the model loads");
    let run = median_run(&loaded, &long_prompt_request(), 128, Threads::Fixed(threads), 5);
    println!(
        "{} {threads} thread(s): prompt {:.1} tok/s ({} tokens), generation {:.1} tok/s ({} tokens)",
        model.id,
        run.stats.prompt_tokens_per_second(),
        run.stats.prompt_tokens,
        run.stats.output_tokens_per_second(),
        run.stats.output_tokens
    );
}

fn label(threads: Threads) -> String {
    match threads {
        Threads::Adaptive => "adaptive".into(),
        Threads::Fixed(count) => format!("{count} thread{}", if count == 1 { "" } else { "s" }),
    }
}

/// A busy loop until killed: the "other process" of the busy-core run.
fn spin() {
    let mut x = 0u64;
    loop {
        x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
    }
}

/// A request whose prompt is about 512 tokens.
fn long_prompt_request() -> ModelRequest {
    let paragraph = "The harbour town wakes before dawn: fishing boats leave the quay, gulls follow them out, \
                     and the bakery on the square lights its ovens for the first bread of the day. ";
    let text = format!("{}\nWrite a short story that continues this scene.", paragraph.repeat(13));
    ModelRequest {
        system: "You are a helpful assistant.".into(),
        messages: vec![ModelMessage::user(text)],
        ..ModelRequest::default()
    }
}

fn median_run(
    model: &EmbeddedModel,
    request: &ModelRequest,
    max_tokens: u32,
    threads: Threads,
    runs: usize,
) -> Generation {
    let options = GenerateOptions { max_tokens, threads, seed: 7 };
    let mut results: Vec<Generation> = (0..runs)
        .map(|_| {
            model
                .generate(request, &options, &CancellationToken::new(), &mut |_| true)
                .expect("generation")
        })
        .collect();
    results.sort_by(|a, b| {
        a.stats.output_tokens_per_second().total_cmp(&b.stats.output_tokens_per_second())
    });
    results.swap_remove(runs / 2)
}

fn planner_run(model: &EmbeddedModel) -> (Generation, String) {
    let facts = PlannerFacts {
        workspace: None,
        sandbox_exists: false,
        context7_available: false,
        round: 1,
        max_question_rounds: 3,
        scope: Vec::new(),
        outcomes: String::new(),
    };
    let request = ModelRequest {
        system: planner_system_prompt(DEFAULT_PLANNER_PROMPT, None, &facts),
        messages: vec![ModelMessage::user(CARD_MESSAGES[0])],
        output: OutputConstraint::PlannerFence,
        ..ModelRequest::default()
    };
    let options = GenerateOptions { max_tokens: 1024, threads: Threads::Adaptive, seed: 7 };
    let mut text = String::new();
    let generation = model
        .generate(&request, &options, &CancellationToken::new(), &mut |piece| {
            text.push_str(piece);
            true
        })
        .expect("the planner turn");
    (generation, text)
}

/// Send → card phase through the engine, on a fresh data folder configured for `id`.
fn first_message_to_card(id: &str) -> Vec<Duration> {
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    runtime.block_on(async {
        let home = tempfile::tempdir().unwrap();
        let config = format!("[provider]\nkind = \"embedded\"\nmodel = \"{id}\"\n");
        std::fs::write(home.path().join("config.toml"), config).unwrap();
        let options = EngineOptions {
            home: home.path().to_owned(),
            mcp: McpOptions::new(home.path(), home.path().join("no-filesystem-server")),
            keys: KeyLookup::new(Vec::new(), |_| None),
            local_models: Some(Arc::new(LlamaModels::new(models_dir()))),
            program: "preflight test".to_owned(),
            home_lock: None,
        };
        let engine = Engine::open(options).await.unwrap();
        let mut times = Vec::new();
        for text in CARD_MESSAGES {
            let chat = engine.create_chat(NewChat::default()).unwrap();
            let mut events = engine.subscribe(&chat.id).unwrap();
            let started = Instant::now();
            engine.send(&chat.id, text, Vec::new()).unwrap();
            loop {
                if let Ok(Event::PlanStatus {
                    phase: Phase::Questions | Phase::AwaitingApproval | Phase::Executing,
                    ..
                }) = events.recv().await
                {
                    break;
                }
            }
            times.push(started.elapsed());
            engine.stop(&chat.id).await.unwrap();
        }
        engine.shutdown().await;
        times
    })
}

fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
