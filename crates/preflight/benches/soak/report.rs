//! What the run printed: turns, faults by kind, kills, what the store and the ledger say,
//! the serve process's memory and descriptors, and the API's read latency.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use crate::args::Args;
use crate::figures::{growth, millis, quantile, Sample};
use crate::serve::processes_running;
use crate::turns::Kind;
use crate::verify;
use crate::worker::ChatLedger;

pub struct Run {
    pub ledgers: Vec<ChatLedger>,
    pub samples: Vec<Sample>,
    pub restarts: Vec<Duration>,
    pub lists: Vec<Duration>,
    pub chats: Vec<Duration>,
    pub elapsed: Duration,
    pub faults: BTreeMap<Kind, usize>,
    pub mcp_kills: usize,
    pub refusals: Vec<String>,
    pub turns_ended: usize,
}

pub fn report(args: &Args, run: &mut Run, verdict: &verify::Verdict) {
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
        "turns with a stream cut or stalled mid-turn: {} left tasks open with the provider_error stop recorded, {} with another stop ({:?}), {} without a stop; {} left none open",
        sum(|l| l.failed_stopped),
        sum(|l| l.failed_other_stop.len()),
        run.ledgers.iter().flat_map(|l| l.failed_other_stop.iter()).collect::<Vec<_>>(),
        sum(|l| l.failed_unrecorded.len()),
        sum(|l| l.failed_without_open)
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
            let (first, second) = g.rss_halves_per_1000;
            println!("  its slope over the first half {first:+.0} KiB, over the second half {second:+.0} KiB per 1,000 turns");
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
pub fn leftovers(needle: &str) -> (Vec<u32>, Duration) {
    let began = Instant::now();
    loop {
        let alive = processes_running(needle);
        if alive.is_empty() || began.elapsed() > Duration::from_secs(20) {
            return (alive, began.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}
