//! The crash test: a child process runs lifecycle steps in a tight loop and is killed with
//! SIGKILL at random instants; after every kill the same file must reopen with integrity
//! "ok", every chat consistent, and every step the child reported committed still there.
//!
//! The child is a real program, `crates/testkit/src/bin/store-crash-child.rs` (the same
//! workload as `preflight_testkit::store::workload`), found and built when missing or stale by
//! `preflight_testkit::child_binary`: it asks cargo to build it and takes the executable's
//! path from cargo's report, so it is right whatever the target and build folders are and
//! whether the whole workspace or this package is tested. The child prints
//! `step <name> <inserts>` after each committed step; the parent kills it after a random
//! number of such lines plus a random spin, so kills land inside transactions.
#![cfg(unix)]

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use std::collections::BTreeMap;
    use std::io::{BufRead, BufReader, Read};
    use std::os::unix::process::ExitStatusExt;
    use std::path::Path;
    use std::process::{Child, ChildStdout, Command, Stdio};
    use std::time::{Duration, Instant};

    use preflight_store::Store;
    use preflight_testkit::store::check::check_store;
    use preflight_testkit::store::workload::Rng;

    const KILLS: u64 = 100;
    /// At most this many reported steps before a kill (uniformly 1..=).
    const MAX_STEPS_BEFORE_KILL: usize = 30;
    /// At most this long a spin between the last line read and the kill.
    const MAX_SPIN: Duration = Duration::from_micros(1500);

    #[test]
    fn sigkill_at_random_instants_leaves_a_consistent_store() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("preflight.db");
        let seed = clock_seed();
        let mut rng = Rng::new(seed);
        let mut stats = Stats::default();
        let started = Instant::now();
        for kill in 0..KILLS {
            let run = crash_once(&db, seed ^ kill, &mut rng);
            let (committed, violations) = inspect(&db);
            assert!(violations.is_empty(), "after kill {kill} (seed {seed}): {violations:#?}");
            // Every step the child reported had committed: none may be lost to the kill.
            let floor = stats.committed + run.inserts;
            assert!(
                committed >= floor,
                "kill {kill}: {committed} inserts survive, {floor} reported"
            );
            stats.record(&run, committed > floor);
            stats.committed = committed;
        }
        eprintln!("crash test (seed {seed}): {stats:?} in {:?}", started.elapsed());
        assert!(stats.steps >= KILLS, "the child made too little progress");
        for step in [
            "record_question_card",
            "record_answer",
            "record_plan_card",
            "edit_plan",
            "approve_plan",
            "cancel_plan",
        ] {
            assert!(stats.by_step.contains_key(step), "the workload never ran {step}: {stats:?}");
        }
    }

    /// What the parent saw of one child's life.
    struct Run {
        steps: Vec<String>,
        inserts: u64,
    }

    #[derive(Debug, Default)]
    struct Stats {
        kills: u64,
        steps: u64,
        /// Kills that landed after a commit the child had not yet reported: proof that kills
        /// hit the child in the middle of its work, not while it idled.
        kills_after_unreported_commit: u64,
        /// Rows inserted into `chats` and `messages`, as `sqlite_sequence` counts them.
        committed: u64,
        by_step: BTreeMap<String, u64>,
    }

    impl Stats {
        fn record(&mut self, run: &Run, unreported_commit: bool) {
            self.kills += 1;
            self.steps += run.steps.len() as u64;
            self.kills_after_unreported_commit += u64::from(unreported_commit);
            for step in &run.steps {
                *self.by_step.entry(step.clone()).or_default() += 1;
            }
        }
    }

    /// Starts a child, lets it report a random number of steps, spins a random while, kills
    /// it with SIGKILL and collects every step it reported.
    fn crash_once(db: &Path, seed: u64, rng: &mut Rng) -> Run {
        let mut child = KillOnDrop(spawn_child(db, seed));
        let mut stdout = BufReader::new(child.0.stdout.take().unwrap());
        let wanted = 1 + rng.below(MAX_STEPS_BEFORE_KILL);
        let mut run = Run { steps: Vec::new(), inserts: 0 };
        while run.steps.len() < wanted {
            if !read_step(&mut stdout, &mut run) {
                panic!("the child stopped by itself:\n{}", child.stderr());
            }
        }
        spin(Duration::from_nanos(rng.below(MAX_SPIN.as_nanos() as usize) as u64));
        child.0.kill().expect("SIGKILL");
        let status = child.0.wait().unwrap();
        assert_eq!(
            status.signal(),
            Some(9),
            "the child was not killed: {status:?}\n{}",
            child.stderr()
        );
        while read_step(&mut stdout, &mut run) {}
        run
    }

    fn spawn_child(db: &Path, seed: u64) -> Child {
        Command::new(preflight_testkit::child_binary("store-crash-child"))
            .arg(db)
            .arg(seed.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn the child")
    }

    /// Reads up to the next `step` line into `run`; false at the end of the child's output.
    fn read_step(stdout: &mut BufReader<ChildStdout>, run: &mut Run) -> bool {
        let mut line = String::new();
        loop {
            line.clear();
            if stdout.read_line(&mut line).unwrap() == 0 {
                return false;
            }
            // A line cut by the kill has no newline and does not count.
            let mut words = line.strip_suffix('\n').unwrap_or("").split(' ');
            if let (Some("step"), Some(name), Some(inserts)) =
                (words.next(), words.next(), words.next())
            {
                run.steps.push(name.to_owned());
                run.inserts += inserts.parse::<u64>().unwrap();
                return true;
            }
        }
    }

    /// Reopens the file the child was killed on: rows inserted so far, and every violation.
    fn inspect(db: &Path) -> (u64, Vec<String>) {
        let store = Store::open(db).expect("the store reopens after a kill");
        let committed: i64 = preflight_testkit::store::raw(&store)
            .query_row("SELECT coalesce(sum(seq), 0) FROM sqlite_sequence", [], |row| row.get(0))
            .unwrap_or(0);
        (committed as u64, check_store(&store))
    }

    /// Waits without sleeping, so the delay is as short as asked (a random kill instant).
    fn spin(duration: Duration) {
        let start = Instant::now();
        while start.elapsed() < duration {
            std::hint::spin_loop();
        }
    }

    fn clock_seed() -> u64 {
        let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
        nanos.as_nanos() as u64
    }

    /// Kills the child if the parent fails halfway, so no child outlives the test.
    struct KillOnDrop(Child);

    impl KillOnDrop {
        fn stderr(&mut self) -> String {
            let mut text = String::new();
            let _ = self.0.kill();
            let _ = self.0.wait();
            if let Some(mut stderr) = self.0.stderr.take() {
                let _ = stderr.read_to_string(&mut text);
            }
            text
        }
    }

    impl Drop for KillOnDrop {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}
