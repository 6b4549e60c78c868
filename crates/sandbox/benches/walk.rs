//! Bench: the walk that finds every `.git` before and after each run (`watch.rs`), on a tree
//! of 100,000 files in 1,100 folders with 10 nested repositories. Prints the p50 and p90 of
//! one snapshot with the page cache warm (a run takes two): every folder read, and with the
//! listings of earlier walks kept (`listings.rs`).
//! Run: `cargo bench -p preflight-sandbox --bench walk` (ITERATIONS=N to change 30,
//! FILES_PER_FOLDER=N to change 100).

use preflight_sandbox::listings::Listings;
use preflight_sandbox::watch;
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let iterations: usize = number("ITERATIONS", 30);
    let per_folder: usize = number("FILES_PER_FOLDER", 100);
    let root = tempfile::tempdir()?;
    let ws = root.path().canonicalize()?;
    let made = Instant::now();
    let files = build_tree(&ws, per_folder)?;
    println!("tree: {files} files in {:?}", made.elapsed());
    // Cold: every folder read, as the first walk of a workspace (and any on a file system
    // whose ctime is not trusted). Warm: the listings of the walks before reused.
    let cold = measure(iterations, || watch::snapshot(&ws));
    let mut listings = Listings::for_workspace(&ws);
    let limits = (watch::MAX_ENTRIES, watch::MAX_DEPTH);
    let warm = measure(iterations, || watch::snapshot_with(&ws, &mut listings, limits.0, limits.1));
    let found = watch::snapshot(&ws).protected(&ws).len();
    println!("snapshot of {files} files, {found} paths protected (a run takes two):");
    println!("  every folder read: p50 {:?}, p90 {:?}", cold.0, cold.1);
    println!("  listings kept:     p50 {:?}, p90 {:?}", warm.0, warm.1);
    Ok(())
}

/// The p50 and p90 of `iterations` snapshots, after two to warm up.
fn measure(iterations: usize, mut walk: impl FnMut() -> watch::Snapshot) -> (Duration, Duration) {
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..iterations + 2 {
        let started = Instant::now();
        let snapshot = walk();
        times.push(started.elapsed());
        assert_eq!(snapshot.capped, None);
    }
    let mut measured = times.split_off(2);
    measured.sort();
    (measured[measured.len() / 2], measured[measured.len() * 9 / 10])
}

fn number(name: &str, default: usize) -> usize {
    std::env::var(name).ok().and_then(|n| n.parse().ok()).unwrap_or(default)
}

/// 100 folders of 10 folders of `per_folder` files each, and a `.git` in 10 of them.
fn build_tree(ws: &std::path::Path, per_folder: usize) -> Result<usize, Error> {
    let mut files = 0;
    for top in 0..100 {
        for sub in 0..10 {
            let folder = ws.join(format!("pkg{top}/mod{sub}"));
            std::fs::create_dir_all(&folder)?;
            for n in 0..per_folder {
                std::fs::write(folder.join(format!("file{n}.py")), "")?;
                files += 1;
            }
        }
        if top % 10 == 0 {
            std::fs::create_dir_all(ws.join(format!("pkg{top}/.git/hooks")))?;
        }
    }
    Ok(files)
}
