//! Bench: the walk that finds every `.git` before and after each run (`watch.rs`), on a tree
//! of 100,000 files in 1,100 folders with 10 nested repositories. Prints the p50 and p90 of
//! one snapshot with the page cache warm (a run takes two), and what it found.
//! Run: `cargo bench -p preflight-sandbox --bench walk` (ITERATIONS=N to change 30,
//! FILES_PER_FOLDER=N to change 100).

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
    let mut times: Vec<Duration> = Vec::new();
    let mut found = 0;
    for _ in 0..iterations + 2 {
        let started = Instant::now();
        let snapshot = watch::snapshot(&ws);
        times.push(started.elapsed());
        found = snapshot.protected(&ws).len();
        assert_eq!(snapshot.capped, None);
    }
    let mut measured = times.split_off(2);
    measured.sort();
    let p50 = measured[measured.len() / 2];
    let p90 = measured[measured.len() * 9 / 10];
    println!("snapshot of {files} files: p50 {p50:?}, p90 {p90:?} ({found} paths protected)");
    Ok(())
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
