//! The store tests' shared workload (feature `store-child`): temp stores, message and plan
//! fixtures, the consistency checker and the random lifecycle workload. Here, in the library,
//! so that the engine's in-process workload test and the crash child (`store-crash-child`)
//! run the same steps without one crate compiling in another's `tests/`.

pub mod check;
pub mod fixtures;
pub mod workload;

use preflight_store::Store;
use tempfile::TempDir;

/// A store on a fresh file in its own temp dir (kept alive by the returned guard).
pub fn temp_store() -> (TempDir, Store) {
    let dir = tempfile::tempdir().expect("temp dir");
    let store = Store::open(dir.path().join("preflight.db")).expect("open store");
    (dir, store)
}

/// A raw connection to the same file, for what the API deliberately cannot do
/// (corrupting rows, reading `seq`s, faking a newer schema).
pub fn raw(store: &Store) -> rusqlite::Connection {
    rusqlite::Connection::open(store.path()).expect("raw connection")
}
