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

mod args;
mod figures;
mod report;
mod rng;
mod serve;
mod turns;
mod verify;
mod worker;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use preflight_testkit::{Matcher, Reply, Script, ScriptedServer};
use tokio::sync::watch;

use args::{parse_args, Args};
use figures::{millis, Sample};
use report::{leftovers, report, Run};
use rng::Rng;
use serve::{everything_server, open_fds, rss_kib, Endpoint, ServeProcess};
use worker::Shared;

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

/// Kills the serve process when the seeded numbers of turns have ended (each after a seeded delay of up to
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
        let due = points.peek().is_some_and(|&p| shared.ended.load(Ordering::SeqCst) >= p);
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

async fn run(args: Args, root: &Path) -> anyhow::Result<Run> {
    let fallback = Reply::text("Nothing more to do for this turn.");
    let provider =
        ScriptedServer::start(Script::new().forever(Matcher::default(), fallback)).await?;
    let home = root.join("home");
    write_home(&home, &provider)?;
    let first = ServeProcess::start(&home, 0)?;
    let (sender, endpoint) = watch::channel(first.endpoint.clone());
    let shared = shared(provider, endpoint, args.turns)?;
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

fn shared(
    provider: ScriptedServer,
    endpoint: watch::Receiver<Endpoint>,
    turns: usize,
) -> anyhow::Result<Arc<Shared>> {
    Ok(Arc::new(Shared {
        provider,
        endpoint,
        client: reqwest::Client::builder().timeout(Duration::from_secs(300)).build()?,
        turns,
        started: AtomicUsize::new(0),
        ended: AtomicUsize::new(0),
        done: AtomicBool::new(false),
        faults: Mutex::new(Vec::new()),
        mcp_kills: AtomicUsize::new(0),
        refusals: Mutex::new(Vec::new()),
    }))
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
