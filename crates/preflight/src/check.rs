//! `preflight check`: the store's own checker (`Store::check`) on the data folder, read-only.
//!
//! When no process holds the data folder it also checks the rules of a store at rest (no
//! turn left running; open tasks carry their stop); beside a running window or `serve` it
//! checks the rest and says so. Exit 0 when consistent, 1 with one line per violation.

use anyhow::{bail, Context};
use preflight_engine::home_lock::{HomeLock, HomeLockError};

use crate::home;

pub fn check_command(args: &[String]) -> anyhow::Result<()> {
    if !args.is_empty() {
        bail!("usage: preflight check");
    }
    let home = home::data_home()?;
    let database = home.join(preflight_engine::lifecycle::DATABASE_FILE);
    if !database.is_file() {
        println!("no chats yet: {} does not exist", database.display());
        return Ok(());
    }
    // Held only while the check runs, so that nothing starts a turn meanwhile.
    let lock = match HomeLock::acquire(&home, "preflight check") {
        Ok(lock) => Some(lock),
        Err(HomeLockError::Held { holder, .. }) => {
            println!(
                "the data folder is in use by {holder}: the rules of a store at rest are skipped"
            );
            None
        }
        Err(error) => return Err(error.into()),
    };
    let store = preflight_engine::store::Store::open_read_only(&database)?;
    let report = store.check(lock.is_some()).context("reading the store")?;
    drop(lock);
    for violation in &report.violations {
        println!("{}", preflight_engine::inert::one_line(violation));
    }
    println!(
        "{} chats, {} messages, {} task lists with work left: {}",
        report.chats,
        report.messages,
        report.open_task_lists,
        if report.is_consistent() { "consistent" } else { "INCONSISTENT" }
    );
    if !report.is_consistent() {
        bail!("{} violations", report.violations.len());
    }
    Ok(())
}
