//! The soak run under faults (issue 53): `preflight serve` (the real binary) with many chats
//! executing at once against a scripted provider that injects faults (HTTP 500, 429 with
//! `retry-after`, a stream cut mid-token, a stalled stream, malformed tool-call JSON), an MCP
//! server killed mid-call, sandbox commands that hang or flood, and the serve process itself
//! killed with SIGKILL at seeded random points and restarted on the same data folder.
//!
//! Afterwards it fails (exit 1, each failure named) unless `preflight check` finds the store
//! consistent, every user message that got a 2xx is stored exactly once and in order, no
//! stored message is one the bench never sent, every turn cut by a kill left the chat idle
//! with its open tasks' stop recorded, and every task list is made of its chat's turns.
//!
//! It reports the turns run, faults by kind, kills, RSS and open descriptors of the serve
//! process (read from `/proc/PID/status` and `/proc/PID/fd` every 250 ms) and their growth
//! per 1,000 turns over the run's last, kill-free part (kills fall between 5 % and 60 % of
//! the turns; the last 40 % run in one process, whose first tenth of the run's turns is its
//! warm-up), and the latency of API reads (`GET /v1/chats`, `GET /v1/chats/{id}`) made by a
//! reader beside the workers.
//!
//! `cargo bench -p preflight --bench soak -- --turns N --chats N --seed N [--kills N]`
//! (defaults: 2,000 turns, 20 chats, seed 53, a kill per 100 turns).

mod figures;
mod serve;
mod turns;
mod verify;
mod worker;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use preflight_testkit::{Matcher, Reply, Script, ScriptedServer};
use tokio::sync::watch;

use figures::{growth, millis, quantile, Sample};
use serve::{everything_server, open_fds, processes_running, rss_kib, Endpoint, ServeProcess};
use turns::Kind;
use worker::{ChatLedger, Shared};

#[derive(Debug, Clone, Copy)]
struct Args {
    turns: usize,
    chats: usize,
    seed: u64,
    kills: usize,
    /// Keep the run's folder (the data folder, the workspaces) to look at afterwards.
    keep: bool,
}

fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args { turns: 2000, chats: 20, seed: 53, kills: usize::MAX, keep: false };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || -> anyhow::Result<u64> {
            let text = words.next().with_context(|| format!("{word} needs a number"))?;
            text.parse().with_context(|| format!("{word} {text}: not a number"))
        };
        match word.as_str() {
            "--turns" => args.turns = value()? as usize,
            "--chats" => args.chats = value()? as usize,
            "--seed" => args.seed = value()?,
            "--kills" => args.kills = value()? as usize,
            "--keep" => args.keep = true,
            "--bench" => {} // what `cargo bench` passes to every bench binary
            other => {
                anyhow::bail!("unknown argument {other}: --turns N --chats N --seed N --kills N")
            }
        }
    }
    if args.kills == usize::MAX {
        args.kills = (args.turns / 100).max(2);
    }
    anyhow::ensure!(args.turns > 0 && args.chats > 0, "--turns and --chats must be positive");
    Ok(args)
}

/// splitmix64: a seeded generator, so a run's faults and kill points repeat with its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn draw(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, bound: u64) -> u64 {
        self.draw() % bound.max(1)
    }
}

/// The data folder: the scripted provider with a short idle timeout (the stall's end) and
/// a window large enough that no compaction call interleaves; the `everything` MCP server.
fn write_home(home: &Path, provider: &ScriptedServer) -> anyhow::Result<()> {
    std::fs::create_dir_all(home)?;
    let config = format!(
        "[provider]\nkind = \"openai\"\nbase_url = \"{}\"\nmodel = \"scripted\"\n\
         idle_timeout_secs = 2\ncontext_window = 1000000\n",
        provider.openai_url()
    );
    std::fs::write(home.join("config.toml"), config)?;
    let server = everything_server();
    anyhow::ensure!(server.is_file(), "{} is missing: npm ci in tests/peers", server.display());
    let mcp = serde_json::json!({"mcpServers": {"everything": {"command": "node", "args": [server, "stdio"]}}});
    std::fs::write(home.join("mcp.json"), mcp.to_string())?;
    Ok(())
}

/// Kills the serve process at the seeded turn counts (each after a seeded delay of up to
/// 1.5 s, so that it lands anywhere in a turn) and restarts it; hands the last one back.
async fn killer(
    shared: Arc<Shared>,
    mut serve: ServeProcess,
    home: std::path::PathBuf,
    points: Vec<usize>,
    sender: watch::Sender<Endpoint>,
    seed: u64,
) -> (ServeProcess, Vec<Duration>) {
    let mut rng = Rng::new(seed ^ 0x6b69_6c6c);
    let mut restarts = Vec::new();
    let mut points = points.into_iter().peekable();
    while !shared.done.load(Ordering::SeqCst) {
        let due = points.peek().is_some_and(|&p| shared.started.load(Ordering::SeqCst) >= p);
        if !due {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        }
        points.next();
        tokio::time::sleep(Duration::from_millis(rng.below(1500))).await;
        let life = serve.endpoint.life + 1;
        serve.kill();
        let began = Instant::now();
        serve = restart(&home, life, &shared.refusals).await;
        restarts.push(began.elapsed());
        let _ = sender.send(serve.endpoint.clone());
    }
    (serve, restarts)
}

/// Starts process `life` on `home`. A start refused because the data folder is still
/// locked (a process that inherited the killed one's lock) is tried again for up to 30 s,
/// each refusal noted with who held the lock file; a process that does not start by then
/// ends the run (exit 1), with its log.
async fn restart(home: &Path, life: usize, refusals: &Mutex<Vec<String>>) -> ServeProcess {
    let began = Instant::now();
    loop {
        let owned = home.to_owned();
        let started = tokio::task::spawn_blocking(move || ServeProcess::start(&owned, life)).await;
        let log = std::fs::read_to_string(serve::log_path(home, life)).unwrap_or_default();
        match started {
            Ok(Ok(serve)) => return serve,
            _ if log.contains("is in use by") && began.elapsed() < Duration::from_secs(30) => {
                let holders = serve::holders_of(&home.join("preflight.lock"));
                let at = millis(began.elapsed());
                refusals
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(format!("life {life} at +{at}: held by {holders:?}"));
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
            failed => {
                eprintln!("soak FAILED: serve did not restart on its home: {failed:?}\n{log}");
                std::process::exit(1);
            }
        }
    }
}

async fn sampler(shared: Arc<Shared>) -> Vec<Sample> {
    let mut samples = Vec::new();
    while !shared.done.load(Ordering::SeqCst) {
        let endpoint = shared.endpoint.borrow().clone();
        if let (Some(rss_kib), Some(fds)) = (rss_kib(endpoint.pid), open_fds(endpoint.pid)) {
            let turns = shared.ended.load(Ordering::SeqCst);
            samples.push(Sample { life: endpoint.life, turns, rss_kib, fds });
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    samples
}

/// Reads the chat list and a chat while the workers run: the latencies of the 2xx answers.
async fn reader(shared: Arc<Shared>, ids: Vec<String>) -> (Vec<Duration>, Vec<Duration>) {
    let (mut lists, mut chats) = (Vec::new(), Vec::new());
    let mut rng = Rng::new(0x7265_6164);
    while !shared.done.load(Ordering::SeqCst) {
        let endpoint = shared.endpoint.borrow().clone();
        let chat = format!("/v1/chats/{}", ids[rng.below(ids.len() as u64) as usize]);
        for (path, into) in [("/v1/chats", &mut lists), (chat.as_str(), &mut chats)] {
            let began = Instant::now();
            let answer = shared
                .client
                .get(format!("{}{path}", endpoint.base))
                .bearer_auth(&endpoint.token)
                .send()
                .await;
            if let Ok(response) = answer {
                if response.status().is_success() && response.bytes().await.is_ok() {
                    into.push(began.elapsed());
                }
            }
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (lists, chats)
}

fn kill_points(args: &Args) -> Vec<usize> {
    let mut rng = Rng::new(args.seed ^ 0x706f_696e_7473);
    let (low, high) = (args.turns * 5 / 100, (args.turns * 60 / 100).max(args.turns * 5 / 100 + 1));
    let mut points: Vec<usize> =
        (0..args.kills).map(|_| low + rng.below((high - low) as u64) as usize).collect();
    points.sort_unstable();
    points
}

struct Run {
    ledgers: Vec<ChatLedger>,
    samples: Vec<Sample>,
    restarts: Vec<Duration>,
    lists: Vec<Duration>,
    chats: Vec<Duration>,
    elapsed: Duration,
    faults: BTreeMap<Kind, usize>,
    mcp_kills: usize,
    refusals: Vec<String>,
    turns_ended: usize,
}

async fn run(args: Args, root: &Path) -> anyhow::Result<Run> {
    let fallback = Reply::text("Nothing more to do for this turn.");
    let provider =
        ScriptedServer::start(Script::new().forever(Matcher::default(), fallback)).await?;
    let home = root.join("home");
    write_home(&home, &provider)?;
    let first = ServeProcess::start(&home, 0)?;
    let (sender, endpoint) = watch::channel(first.endpoint.clone());
    let client = reqwest::Client::builder().timeout(Duration::from_secs(300)).build()?;
    let shared = Arc::new(Shared {
        provider,
        endpoint,
        client,
        turns: args.turns,
        started: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        done: AtomicBool::new(false),
        faults: Mutex::new(Vec::new()),
        mcp_kills: AtomicUsize::new(0),
        refusals: Mutex::new(Vec::new()),
    });
    let mut ledgers = Vec::new();
    for index in 0..args.chats {
        ledgers.push(worker::create_chat(&shared, index, root).await?);
    }
    let ids: Vec<String> = ledgers.iter().map(|ledger| ledger.id.clone()).collect();
    let began = Instant::now();
    let killer = tokio::spawn(killer(
        shared.clone(),
        first,
        home.clone(),
        kill_points(&args),
        sender,
        args.seed,
    ));
    let sampler = tokio::spawn(sampler(shared.clone()));
    let reader = tokio::spawn(reader(shared.clone(), ids));
    let workers: Vec<_> = ledgers
        .into_iter()
        .map(|ledger| tokio::spawn(worker::run_chat(shared.clone(), ledger, args.seed)))
        .collect();
    let mut ledgers = Vec::new();
    for worker in workers {
        ledgers.push(worker.await?);
    }
    let elapsed = began.elapsed();
    shared.done.store(true, Ordering::SeqCst);
    let (serve, restarts) = killer.await?;
    let (samples, (lists, chats)) = (sampler.await?, reader.await?);
    serve.terminate()?;
    let mut faults = BTreeMap::new();
    for kind in shared.faults.lock().unwrap_or_else(|e| e.into_inner()).iter() {
        *faults.entry(*kind).or_default() += 1;
    }
    let mcp_kills = shared.mcp_kills.load(Ordering::SeqCst);
    let turns_ended = shared.ended.load(Ordering::SeqCst);
    let refusals = std::mem::take(&mut *shared.refusals.lock().unwrap_or_else(|e| e.into_inner()));
    Ok(Run {
        ledgers,
        samples,
        restarts,
        lists,
        chats,
        elapsed,
        faults,
        mcp_kills,
        refusals,
        turns_ended,
    })
}

fn main() -> std::process::ExitCode {
    match soak() {
        Ok(true) => std::process::ExitCode::SUCCESS,
        Ok(false) => std::process::ExitCode::FAILURE,
        Err(error) => {
            eprintln!("soak: {error:#}");
            std::process::ExitCode::FAILURE
        }
    }
}

fn soak() -> anyhow::Result<bool> {
    let args = parse_args()?;
    let root = tempfile::tempdir()?;
    println!(
        "soak: {} turns, {} chats, seed {}, {} kills, in {}",
        args.turns,
        args.chats,
        args.seed,
        args.kills,
        root.path().display()
    );
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build()?;
    let mut run = runtime.block_on(run(args, root.path()))?;
    runtime.shutdown_timeout(Duration::from_secs(5));
    let home_text = root.path().display().to_string();
    let mut verdict = verify::Verdict::default();
    verify::run_checker(&root.path().join("home"), &mut verdict)?;
    let database = root.path().join("home").join(preflight_engine::lifecycle::DATABASE_FILE);
    verify::compare(&database, &run.ledgers, &mut verdict)?;
    report(&args, &mut run, &verdict);
    if args.keep {
        println!("kept: {}", root.keep().display());
    }
    let mut failures = verdict.failures(&run.ledgers);
    if run.turns_ended < args.turns {
        failures.push(format!("only {} of {} turns ran", run.turns_ended, args.turns));
    }
    let (leftovers, lingered) = leftovers(&home_text);
    println!("processes of the run alive after serve stopped: gone after {}", millis(lingered));
    if !leftovers.is_empty() {
        failures
            .push(format!("{} processes of the run left behind: {leftovers:?}", leftovers.len()));
    }
    for failure in &failures {
        eprintln!("soak FAILED: {failure}");
    }
    Ok(failures.is_empty())
}

fn report(args: &Args, run: &mut Run, verdict: &verify::Verdict) {
    let sum = |f: fn(&ChatLedger) -> usize| run.ledgers.iter().map(f).sum::<usize>();
    println!(
        "turns run: {} in {:.1} s ({:.1} turns/s), {} chats at once",
        run.turns_ended,
        run.elapsed.as_secs_f64(),
        run.turns_ended as f64 / run.elapsed.as_secs_f64(),
        args.chats
    );
    let faults: usize = run.faults.values().sum();
    println!(
        "faults injected: {faults} ({:.0} % of turns)",
        100.0 * faults as f64 / run.turns_ended.max(1) as f64
    );
    for (kind, count) in &run.faults {
        println!("  {:<28} {count}", kind.name());
    }
    println!(
        "  MCP server processes killed: {}; calls cut by it (stored results): {}; sandbox timeouts (stored): {}",
        run.mcp_kills, verdict.mcp_calls_cut, verdict.sandbox_timeouts
    );
    let restart_p50 = quantile(&mut run.restarts, 0.5);
    println!(
        "serve SIGKILLs: {} (restart to listening p50 {})",
        run.restarts.len(),
        millis(restart_p50)
    );
    println!(
        "restarts refused, the data folder still locked after the SIGKILL: {}",
        run.refusals.len()
    );
    for refusal in &run.refusals {
        println!("  {refusal}");
    }
    println!(
        "turns cut by a kill: {} (open tasks with their stop recorded after restart: {}); POSTs cut by a kill: {} (stored: {})",
        sum(|l| l.interrupted), sum(|l| l.interrupted_stopped), sum(|l| l.uncertain.len()), verdict.uncertain_stored
    );
    println!(
        "turns failed mid-turn by a cut or stalled stream: {} with the provider_error stop recorded, {} without",
        sum(|l| l.failed_stopped), sum(|l| l.failed_unrecorded.len())
    );
    println!(
        "user messages: {} got 2xx, {} stored; lost {}, doubled {}, never sent {}; task lists with work left {}",
        sum(|l| l.sent.len()), verdict.stored_user_messages, verdict.lost.len(), verdict.doubled.len(), verdict.unknown.len(), verdict.open_task_lists
    );
    println!("store checker: {}", verdict.checker.lines().last().unwrap_or("(no output)"));
    memory_report(args, run);
    let (l50, l99) = (quantile(&mut run.lists, 0.5), quantile(&mut run.lists, 0.99));
    let (c50, c99) = (quantile(&mut run.chats, 0.5), quantile(&mut run.chats, 0.99));
    println!("API reads under load: GET /v1/chats p50 {} p99 {} ({} reads); GET /v1/chats/{{id}} p50 {} p99 {} ({} reads)", millis(l50), millis(l99), run.lists.len(), millis(c50), millis(c99), run.chats.len());
}

fn memory_report(args: &Args, run: &Run) {
    let last_life = run.samples.last().map_or(0, |s| s.life);
    let warm_up = args.turns / 10;
    match growth(&run.samples, last_life, warm_up, (args.turns / 10).max(1)) {
        Some(g) => {
            println!(
                "serve RSS (last life, {} turns after a {warm_up}-turn warm-up): {} KiB → {} KiB, {:+.0} KiB per 1,000 turns",
                g.turns, g.rss_after_warm_up_kib, g.rss_end_kib, g.rss_kib_per_1000
            );
            println!(
                "serve open fds: {} → {}, {:+.1} per 1,000 turns",
                g.fds_after_warm_up, g.fds_end, g.fds_per_1000
            );
        }
        None => println!(
            "serve RSS/fds: the last life ran too few turns after its warm-up to measure growth"
        ),
    }
    let peak = run.samples.iter().map(|s| s.rss_kib).max().unwrap_or(0);
    println!("serve RSS peak over the run: {peak} KiB ({} samples)", run.samples.len());
}

/// Processes started for the run (their command lines name its folder: sandboxes, their
/// commands, MCP servers' children) still alive after serve stopped: a killed serve's
/// sandbox finishes what it was doing when its stdin closes, so they get 20 s to go.
fn leftovers(needle: &str) -> (Vec<u32>, Duration) {
    let began = Instant::now();
    loop {
        let alive = processes_running(needle);
        if alive.is_empty() || began.elapsed() > Duration::from_secs(20) {
            return (alive, began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
