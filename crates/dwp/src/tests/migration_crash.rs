//! The v1 migration under SIGKILL: the crash test's child (`crash.rs`) runs guarded updates on
//! a fresh v1 folder and is killed at a random instant around its first write, the one that
//! migrates. Before any recovery the folder is the v1 folder (its copies, when already there,
//! whole and byte-identical), the migrated one, or a decided change the next writer finishes;
//! after the next writer it is migrated exactly once, with byte-identical copies beside.

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use super::crash::{clock_seed, spawn_child, spin, KillOnDrop, Rng};
use super::support::*;
use super::{
    at, break_stale_lock, has_pending_commit, read_manifest, read_state, LockOptions, LOCK_DIR,
    MANIFEST_FILE, MANIFEST_V1_COPY, STATE_FILE, STATE_V1_COPY,
};

const KILLS: u32 = 40;

/// Where a kill left the folder, before recovery.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outcome {
    V1,
    V1WithCopies,
    Decided,
    Migrated,
}

#[test]
fn a_kill_during_the_migration_leaves_the_v1_folder_or_the_migrated_one() {
    let mut rng = Rng(clock_seed());
    let mut instant = time_to_first_write();
    let mut outcomes = Vec::new();
    for kill in 0..KILLS {
        let ws = workspace(true);
        let v1 = v1_folder(ws.path());
        let mut child = KillOnDrop(spawn_child(v1.dir.path()));
        spin(instant.mul_f64(0.5 + rng.below(1000) as f64 / 1000.0));
        child.0.kill().unwrap();
        child.0.wait().unwrap();
        let outcome = inspect_after_kill(&v1, kill);
        finish_and_check(&v1, kill);
        // A staircase around the migration, whatever the machine's speed: later after a kill
        // that came before it, earlier after one that came after it.
        instant = match outcome {
            Outcome::V1 => instant.mul_f64(1.25),
            Outcome::Migrated => instant.mul_f64(0.8),
            Outcome::V1WithCopies | Outcome::Decided => instant,
        };
        outcomes.push(outcome);
    }
    let count = |wanted: &[Outcome]| outcomes.iter().filter(|o| wanted.contains(o)).count();
    eprintln!(
        "dwp migration crash test: v1 {}, v1 with copies {}, decided {}, migrated {}",
        count(&[Outcome::V1]),
        count(&[Outcome::V1WithCopies]),
        count(&[Outcome::Decided]),
        count(&[Outcome::Migrated])
    );
    assert!(count(&[Outcome::V1, Outcome::V1WithCopies]) > 0, "no kill before: {outcomes:?}");
    assert!(count(&[Outcome::Decided, Outcome::Migrated]) > 0, "no kill after: {outcomes:?}");
}

/// From the child's start to its first reported write (the migration), once.
fn time_to_first_write() -> Duration {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let mut child = KillOnDrop(spawn_child(v1.dir.path()));
    let started = Instant::now();
    let mut lines = BufReader::new(child.0.stdout.take().unwrap()).lines();
    while !lines.next().expect("the child stopped by itself").unwrap().starts_with("step ") {}
    started.elapsed()
}

/// Before any recovery: the copies present are whole; the folder is v1 as written, migrated,
/// or a decided change.
fn inspect_after_kill(v1: &V1Folder, kill: u32) -> Outcome {
    let dir = v1.dir.path();
    read_state(&v1.dir).unwrap_or_else(|error| panic!("kill {kill}: state.json: {error}"));
    read_manifest(&v1.dir).unwrap_or_else(|error| panic!("kill {kill}: manifest.json: {error}"));
    let copies = copies_present(v1, kill);
    let read = |name: &str| std::fs::read(dir.join(name)).unwrap();
    if has_pending_commit(dir) {
        assert_eq!(copies, 2, "kill {kill}: a decided migration has both copies beside");
        Outcome::Decided
    } else if read(MANIFEST_FILE) == v1.manifest && read(STATE_FILE) == v1.state {
        assert_eq!(read("PROGRESS.md"), V1_PROGRESS.as_bytes(), "kill {kill}: a v1 folder");
        if copies == 0 {
            Outcome::V1
        } else {
            Outcome::V1WithCopies
        }
    } else {
        assert_migrated(v1, kill);
        Outcome::Migrated
    }
}

/// The next writer (the dead one's lock broken first) finishes or makes the migration.
fn finish_and_check(v1: &V1Folder, kill: u32) {
    let dir = v1.dir.path();
    let lock = dir.join(LOCK_DIR);
    if lock.exists() && std::fs::read_dir(&lock).unwrap().next().is_some() {
        break_stale_lock(dir, LockOptions::default()).unwrap();
    }
    let lines = ["Checked after a kill.".to_owned()];
    plan_files()
        .record_completion(&v1.dir, &lines, &at(59))
        .unwrap_or_else(|error| panic!("kill {kill}: {error}"));
    assert_migrated(v1, kill);
    let leftovers: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with('.') || name.ends_with(".next"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new(), "kill {kill}");
}

fn assert_migrated(v1: &V1Folder, kill: u32) {
    let dir = v1.dir.path();
    for name in [MANIFEST_FILE, STATE_FILE] {
        let schema = read_json(&dir.join(name))["schema"].as_str().unwrap_or_default().to_owned();
        assert!(schema.ends_with("/v2.json"), "kill {kill}: {name} is {schema}");
    }
    assert_eq!(copies_present(v1, kill), 2, "kill {kill}: the v1 files are kept beside");
    assert_eq!(migration_lines(dir).len(), 1, "kill {kill}: migrated exactly once");
}

/// How many of the two copies are there; each one present is byte-identical to its original.
fn copies_present(v1: &V1Folder, kill: u32) -> usize {
    let originals = [(MANIFEST_V1_COPY, &v1.manifest), (STATE_V1_COPY, &v1.state)];
    let present = originals.iter().filter_map(|(name, original)| {
        let copy = std::fs::read(v1.dir.path().join(name)).ok()?;
        assert_eq!(&copy, *original, "kill {kill}: {name} is not the v1 file byte for byte");
        Some(())
    });
    present.count()
}
