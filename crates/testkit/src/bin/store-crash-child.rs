//! The child of the store crash test (`crates/engine/tests/store_crash.rs`):
//! `store-crash-child DB SEED` opens the store and runs random legal lifecycle steps until
//! it is killed, printing `step <name> <inserts>` after each committed step.
//!
//! The workload is this crate's [`preflight_testkit::store::workload`], which the engine's
//! in-process workload test runs too, so that both run the same steps.

use std::io::Write;

use preflight_store::Store;
use preflight_testkit::store::workload::{self, Rng};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [db, seed] = args.as_slice() else {
        panic!("usage: store-crash-child DB SEED");
    };
    let seed = seed.parse().unwrap_or(1);
    let store = Store::open(db).expect("the child opens the store");
    let mut rng = Rng::new(seed);
    let mut out = std::io::stdout().lock();
    loop {
        let report = workload::step(&store, &mut rng).expect("a legal step");
        writeln!(out, "step {} {}", report.name, report.inserts).expect("report");
        out.flush().expect("report");
    }
}
