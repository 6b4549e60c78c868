//! Bench: checkpoints of a 10,000-file workspace (100 folders of small text files). One first
//! snapshot, then rounds that each change 10 files and take a checkpoint. Prints the p50 and
//! p90 of a checkpoint's time (the goal: p50 under 200 ms) and the disk the shadow repository
//! grows by per checkpoint against the bytes changed (the goal: proportional to what changed,
//! not to the tree). Also: a checkpoint with nothing changed, `stat` and `restore_plan`.
//! Run: `cargo bench -p preflight-checkpoints` (ROUNDS=N to change 50).

use std::path::Path;
use std::time::{Duration, Instant};

use preflight_checkpoints::{Limits, ShadowRepo};

type Error = Box<dyn std::error::Error>;

const FOLDERS: usize = 100;
const FILES_PER_FOLDER: usize = 100;
const CHANGED_PER_ROUND: usize = 10;

fn main() -> Result<(), Error> {
    let rounds: usize = std::env::var("ROUNDS").ok().and_then(|n| n.parse().ok()).unwrap_or(50);
    let workspace = tempfile::tempdir()?;
    let home = tempfile::tempdir()?;
    let tree_bytes = make_workspace(workspace.path())?;
    let repo =
        ShadowRepo::open(&home.path().join("bench.git"), workspace.path(), Limits::default())?;
    println!(
        "workspace: {} files in {FOLDERS} folders, {} KiB",
        FOLDERS * FILES_PER_FOLDER,
        tree_bytes / 1024
    );
    let started = Instant::now();
    let first = repo.snapshot("first")?;
    let first_time = started.elapsed();
    let first_disk = repo.disk_usage();
    println!(
        "first snapshot: {:.1} ms, {} files, shadow repository {} KiB",
        ms(first_time),
        first.changed,
        first_disk / 1024
    );
    let mut commits = vec![first.commit];
    let (times, changed_bytes) = run_rounds(&repo, workspace.path(), rounds, &mut commits)?;
    let growth = repo.disk_usage().saturating_sub(first_disk);
    report_rounds(rounds, &times, growth, &changed_bytes, tree_bytes);
    report_reads(&repo, &commits)?;
    report_forget(&repo, &commits)?;
    Ok(())
}

/// Each round changes files and takes a checkpoint (timed); returns the times and the
/// bytes changed per round, and adds the commits to `commits`.
fn run_rounds(
    repo: &ShadowRepo,
    workspace: &Path,
    rounds: usize,
    commits: &mut Vec<String>,
) -> Result<(Vec<Duration>, Vec<u64>), Error> {
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let (mut times, mut changed_bytes) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        changed_bytes.push(change_files(workspace, &mut rng, round)?);
        let started = Instant::now();
        let snapshot = repo.snapshot(&format!("round {round}"))?;
        times.push(started.elapsed());
        assert_eq!(snapshot.changed, CHANGED_PER_ROUND, "round {round}");
        commits.push(snapshot.commit);
    }
    Ok((times, changed_bytes))
}

/// `growth`: the repository's bytes on disk after the rounds less after the first snapshot
/// (net of the roll-ups, which free what they pack).
fn report_rounds(rounds: usize, times: &[Duration], growth: u64, changed: &[u64], tree: u64) {
    let mut sorted = times.to_vec();
    sorted.sort();
    let (p50, p90) = (sorted[sorted.len() / 2], sorted[sorted.len() * 9 / 10]);
    println!("checkpoint after changing {CHANGED_PER_ROUND} files, {rounds} rounds:");
    println!("  p50 {:8.1} ms   (goal < 200 ms: {:.2}x of the goal)", ms(p50), ms(p50) / 200.0);
    println!("  p90 {:8.1} ms", ms(p90));
    let bytes: u64 = changed.iter().sum();
    let per = |total: u64| total as f64 / rounds as f64 / 1024.0;
    println!(
        "disk per checkpoint (net growth over the rounds): {:.1} KiB for {:.1} KiB of changed files",
        per(growth),
        per(bytes)
    );
    println!("  disk growth / bytes changed: {:.1}x", growth as f64 / bytes as f64);
    println!(
        "  disk growth / whole tree (a full copy each time would be 1.0): {:.4}",
        growth as f64 / rounds as f64 / tree as f64
    );
}

/// Time of a checkpoint with nothing changed, of `stat` across the rounds, of `restore_plan`.
fn report_reads(repo: &ShadowRepo, commits: &[String]) -> Result<(), Error> {
    let unchanged = median_of(9, || repo.snapshot("unchanged").map(|_| ()))?;
    let (first, last) = (&commits[0], &commits[commits.len() - 1]);
    let stat = median_of(9, || repo.stat(first, last).map(|_| ()))?;
    let diff = median_of(9, || repo.diff(&commits[commits.len() - 2], last).map(|_| ()))?;
    let plan = median_of(5, || repo.restore_plan(first, last).map(|_| ()))?;
    println!("checkpoint, nothing changed: p50 {:.1} ms", ms(unchanged));
    println!("stat first..last: p50 {:.1} ms; diff of one round: p50 {:.1} ms", ms(stat), ms(diff));
    println!("restore_plan to the first checkpoint: p50 {:.1} ms", ms(plan));
    Ok(())
}

/// Disk before and after letting all but the last ten checkpoints go.
fn report_forget(repo: &ShadowRepo, commits: &[String]) -> Result<(), Error> {
    let before = repo.disk_usage();
    let old: Vec<&str> =
        commits[..commits.len().saturating_sub(10)].iter().map(String::as_str).collect();
    let started = Instant::now();
    repo.forget(&old)?;
    let took = started.elapsed();
    let after = repo.disk_usage();
    println!(
        "forget {} of {} checkpoints (gc --prune=now): {:.0} ms, {} KiB -> {} KiB",
        old.len(),
        commits.len(),
        ms(took),
        before / 1024,
        after / 1024
    );
    Ok(())
}

/// Writes the workspace; returns its size in bytes.
fn make_workspace(root: &Path) -> Result<u64, Error> {
    let mut total = 0;
    for folder in 0..FOLDERS {
        let dir = root.join(format!("module{folder:03}"));
        std::fs::create_dir(&dir)?;
        for file in 0..FILES_PER_FOLDER {
            let text = source_text(folder, file, 0);
            total += text.len() as u64;
            std::fs::write(dir.join(format!("file{file:03}.rs")), text)?;
        }
    }
    Ok(total)
}

/// Rewrites `CHANGED_PER_ROUND` files (distinct, chosen at random); returns their new size.
fn change_files(root: &Path, rng: &mut XorShift, round: usize) -> Result<u64, Error> {
    let mut chosen = Vec::new();
    while chosen.len() < CHANGED_PER_ROUND {
        let pick = (rng.next() % (FOLDERS * FILES_PER_FOLDER) as u64) as usize;
        if !chosen.contains(&pick) {
            chosen.push(pick);
        }
    }
    let mut bytes = 0;
    for pick in chosen {
        let (folder, file) = (pick / FILES_PER_FOLDER, pick % FILES_PER_FOLDER);
        let text = source_text(folder, file, round + 1);
        bytes += text.len() as u64;
        std::fs::write(root.join(format!("module{folder:03}/file{file:03}.rs")), text)?;
    }
    Ok(bytes)
}

/// A small source file, different for each version.
fn source_text(folder: usize, file: usize, version: usize) -> String {
    let mut text = format!("//! Module {folder}, file {file}.\n\n");
    for line in 0..8 {
        text.push_str(&format!(
            "pub fn f{line}() -> u64 {{ {} }}\n",
            folder * 7 + file * 3 + line + version * 1000
        ));
    }
    text
}

fn median_of(
    times: usize,
    mut once: impl FnMut() -> Result<(), preflight_checkpoints::CheckpointError>,
) -> Result<Duration, Error> {
    let mut all = Vec::new();
    for _ in 0..times {
        let started = Instant::now();
        once()?;
        all.push(started.elapsed());
    }
    all.sort();
    Ok(all[all.len() / 2])
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}
