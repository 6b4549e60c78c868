//! The crash test of the plan files: a child process runs guarded updates in a tight loop
//! and is killed with SIGKILL at random instants, many times. After every kill, before any
//! recovery, every file parses (state.json and manifest.json as their v2 schemas,
//! README.md with all its tasks) and, unless a decided change is pending, README.md and
//! state.json agree; the dead writer's lock is reported stale and broken only on request;
//! after the next writer's recovery the verifier finds nothing and no step the child
//! reported is lost.
//!
//! The child is a real program, `crates/testkit/src/bin/dwp-crash-child.rs`, found (and
//! built when missing or stale) by `preflight_testkit::child_binary`: it asks cargo to build
//! it and takes the executable's path from cargo's own report, so it is the right binary
//! whatever the target and build folders are and whichever package's tests run. It takes
//! the plan folder and prints `step <PROGRESS entries>` after each update it wrote.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::support::*;
use super::{
    at, break_stale_lock, checkbox_findings, has_pending_commit, parse_readme, read_manifest,
    read_state, verify_plan, LockOptions, PlanFolder, UpdateAction, UpdateRequest, LOCK_DIR,
};
use crate::rules::readme::first_status_word;
use crate::rules::task_file::is_task_file_name;

const KILLS: u64 = 100;
const MAX_STEPS_BEFORE_KILL: u64 = 12;
const MAX_SPIN: Duration = Duration::from_micros(3000);
const TASKS: u32 = 5;

#[derive(Debug, Default)]
struct Stats {
    steps: u64,
    locks_broken: u64,
    pending_commits: u64,
    leftovers: u64,
    releases_cut: u64,
}

#[test]
fn dwp_sigkill_during_writes_leaves_files_that_parse() {
    let ws = workspace(true);
    let document = plan_document(
        "Crash me",
        &["one", "two", "three", "four", "five"],
        crate::PlanApproval::Approved,
    );
    let tasks = from_steps(&["one", "two", "three", "four", "five"]);
    let dir = plan_files().materialize(ws.path(), &document, &tasks, CHAT, &at(0)).unwrap();
    let mut rng = Rng(clock_seed());
    let mut stats = Stats::default();
    let started = Instant::now();
    for kill in 0..KILLS {
        let reported = crash_once(dir.path(), &mut rng, &mut stats);
        inspect_after_kill(&dir, kill, &mut stats);
        recover_and_check(&dir, kill, reported);
    }
    eprintln!("dwp crash test: {stats:?} in {:?}", started.elapsed());
    assert!(stats.steps >= KILLS, "the child made too little progress: {stats:?}");
    assert!(stats.locks_broken > 0, "no kill landed while the child held the lock: {stats:?}");
}

/// Runs a child, lets it report some steps, spins a random while, kills it; returns the
/// last PROGRESS entry count it reported.
fn crash_once(plan: &Path, rng: &mut Rng, stats: &mut Stats) -> usize {
    let mut child = KillOnDrop(spawn_child(plan));
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    let wanted = 1 + rng.below(MAX_STEPS_BEFORE_KILL);
    let mut reported = 0;
    let mut seen = 0;
    while seen < wanted {
        let line = lines.next().expect("the child stopped by itself").unwrap();
        if let Some(count) = line.strip_prefix("step ") {
            reported = count.parse().unwrap();
            stats.steps += 1;
            seen += 1;
        }
    }
    spin(Duration::from_nanos(rng.below(MAX_SPIN.as_nanos() as u64)));
    child.0.kill().unwrap();
    child.0.wait().unwrap();
    // Lines the child managed to write before dying count as reported too.
    for line in lines.map_while(Result::ok) {
        if let Some(count) = line.strip_prefix("step ").and_then(|n| n.parse().ok()) {
            reported = count;
            stats.steps += 1;
        }
    }
    reported
}

/// Before any recovery: every file parses; the files agree unless a decided change is
/// pending; the dead writer's lock is stale, reported, and broken only when asked.
fn inspect_after_kill(dir: &PlanFolder, kill: u64, stats: &mut Stats) {
    read_state(dir).unwrap_or_else(|error| panic!("kill {kill}: state.json: {error}"));
    read_manifest(dir).unwrap_or_else(|error| panic!("kill {kill}: manifest.json: {error}"));
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    assert_eq!(parse_readme(&readme).tasks.len(), TASKS as usize, "kill {kill}: README.md");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).expect("PROGRESS.md is UTF-8");
    assert!(progress.ends_with('\n'), "kill {kill}: PROGRESS.md ends mid-line");
    if has_pending_commit(dir.path()) {
        stats.pending_commits += 1;
    } else {
        let state = read_state(dir).unwrap().state;
        let findings = checkbox_findings(&parse_readme(&readme), &state);
        assert!(findings.is_empty(), "kill {kill}: {findings:#?}");
        assert_task_files_agree(dir, &state, kill);
    }
    stats.leftovers += leftovers(dir.path());
    let lock = dir.path().join(LOCK_DIR);
    if lock.exists() && std::fs::read_dir(&lock).unwrap().next().is_none() {
        // Killed while releasing: the owner file was gone, the folder not yet. A lock is
        // only ever created whole (renamed in with its owner), so an empty one is a
        // release cut short; the next writer's rename replaces it (recover_and_check).
        stats.releases_cut += 1;
    } else if lock.exists() {
        let update = UpdateRequest {
            action: UpdateAction::Reconcile,
            expected_sha256: None,
            break_stale_lock: false,
        };
        let refused = plan_files().update(dir, &update, &at(1)).unwrap_err();
        assert!(refused.to_string().contains("stale"), "kill {kill}: {refused}");
        let owner = break_stale_lock(dir.path(), LockOptions::default()).unwrap();
        assert!(owner.is_some(), "kill {kill}");
        stats.locks_broken += 1;
    }
}

/// The next writer recovers; then the verifier is clean and nothing reported is lost.
fn recover_and_check(dir: &PlanFolder, kill: u64, reported: usize) {
    let update = UpdateRequest {
        action: UpdateAction::Reconcile,
        expected_sha256: None,
        break_stale_lock: false,
    };
    let report = plan_files()
        .update(dir, &update, &at(1))
        .unwrap_or_else(|error| panic!("kill {kill}: {error}"));
    assert!(
        report.log.is_empty(),
        "kill {kill}: README and state disagreed after recovery: {:?}",
        report.log
    );
    let findings = verify_plan(dir, LockOptions::default()).unwrap().findings;
    assert!(findings.is_empty(), "kill {kill}: {findings:#?}");
    assert_eq!(leftovers(dir.path()), 0, "kill {kill}: recovery left files behind");
    assert!(progress_entries(dir.path()) >= reported, "kill {kill}: a reported step was lost");
}

/// Each task's own file says the status `state.json` says: they change in one commit.
fn assert_task_files_agree(dir: &PlanFolder, state: &crate::PlanState, kill: u64) {
    for task in &state.tasks {
        let text = std::fs::read_to_string(dir.file(&task.locator.value))
            .unwrap_or_else(|error| panic!("kill {kill}: {}: {error}", task.locator.value));
        let status = first_status_word(&text);
        assert_eq!(status.as_deref(), Some(task.status.as_str()), "kill {kill}: task {}", task.id);
    }
}

fn progress_entries(plan: &Path) -> usize {
    let text = std::fs::read_to_string(plan.join("PROGRESS.md")).unwrap();
    text.lines().filter(|line| line.starts_with("- ")).count()
}

/// Temp files, `.next` files, the `.commit` marker and lock candidates.
fn leftovers(plan: &Path) -> u64 {
    let expected = [
        "README.md",
        "PROGRESS.md",
        "PROMPTS.md",
        "manifest.json",
        "state.json",
        "analysis_results",
        LOCK_DIR,
    ];
    let is_task_file = |name: &str| (1..=TASKS).any(|id| is_task_file_name(id, name));
    std::fs::read_dir(plan)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| !expected.contains(&name.as_str()) && !is_task_file(name))
        .count() as u64
}

pub(crate) fn spawn_child(plan: &Path) -> Child {
    Command::new(preflight_testkit::child_binary("dwp-crash-child"))
        .arg(plan)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn the child")
}

/// Waits without sleeping, so the delay is as short as asked (a random kill instant).
pub(crate) fn spin(duration: Duration) {
    let start = Instant::now();
    while start.elapsed() < duration {
        std::hint::spin_loop();
    }
}

pub(crate) fn clock_seed() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64
}

/// xorshift64*: enough randomness for kill instants, seeded from the clock.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) % bound.max(1)
    }
}

/// Kills the child if the parent fails halfway, so no child outlives the test.
pub(crate) struct KillOnDrop(pub(crate) Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
