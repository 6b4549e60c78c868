//! The [`Store`] itself: one SQLite connection behind a mutex, opened with the settings
//! the crash guarantees need, and the two ways in, [`Store::write`] and [`Store::read`] (one
//! transaction each). The steps are methods added in the files beside this one.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::error::StoreError;
use crate::tx::Tx;
use crate::{migrations, schema};

/// How long a write waits for another connection (another process) to finish its own.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// The schema version this code writes; a file with a higher one is refused.
pub const SCHEMA_VERSION: i64 = schema::MIGRATIONS.len() as i64;

/// The store of one `preflight.db` file. `Send + Sync`: share it through an `Arc`.
pub struct Store {
    connection: Mutex<Connection>,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_owned();
        let mut connection = Connection::open(&path).map_err(|source| open_error(&path, source))?;
        configure(&connection, &path)?;
        migrations::migrate(&mut connection, &path, schema::MIGRATIONS)?;
        Ok(Store { connection: Mutex::new(connection), path })
    }

    /// Opens an existing database for reading only, beside the process that holds the data
    /// folder (SQLite's WAL lets readers run beside one writer). Nothing is created or
    /// migrated: a file of another schema version is refused.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Store, StoreError> {
        let path = path.as_ref().to_owned();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let connection = Connection::open_with_flags(&path, flags)
            .map_err(|source| open_error(&path, source))?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(|source| open_error(&path, source))?;
        let found = migrations::user_version(&connection, &path)?;
        if found != SCHEMA_VERSION {
            return Err(StoreError::SchemaMismatch { path, found, known: SCHEMA_VERSION });
        }
        Ok(Store { connection: Mutex::new(connection), path })
    }

    /// The database file this store was opened on.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Runs `step` in one write transaction: committed when it returns `Ok`, rolled back
    /// (nothing changed) when it returns an error or panics.
    ///
    /// The transaction takes the write lock at its start (`BEGIN IMMEDIATE`), so a step that
    /// reads and then writes never meets a conflicting writer halfway.
    pub fn write<T>(
        &self,
        step: impl FnOnce(&mut Tx<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = self.lock();
        let sql = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let mut tx = Tx::new(sql);
        let value = step(&mut tx)?;
        tx.record_points()?;
        tx.commit()?;
        Ok(value)
    }

    /// Runs `query` in one read transaction, so everything it reads belongs to one state.
    pub fn read<T>(
        &self,
        query: impl FnOnce(&Tx<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = self.lock();
        let sql = connection.transaction_with_behavior(TransactionBehavior::Deferred)?;
        let tx = Tx::new(sql);
        let value = query(&tx);
        drop(tx); // ends the read transaction (a rollback: it wrote nothing)
        value
    }

    /// The connection. A panic inside `write` or `read` drops its transaction, which rolls
    /// back, so a poisoned mutex still guards a consistent connection and is taken over.
    fn lock(&self) -> MutexGuard<'_, Connection> {
        self.connection.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Connection settings, set on every open.
///
/// WAL with `synchronous = NORMAL`: a commit appends its pages to the WAL with a checksum
/// and a commit marker; readers and recovery only ever see whole transactions. A process
/// crash (the case the crash test covers, and the common one for a desktop app) loses no
/// committed transaction, because the written WAL pages live in the OS page cache. Only a
/// power loss or OS crash may lose the last commits before the next checkpoint; even then
/// recovery stops at the last intact commit, so the file holds an earlier consistent state,
/// never half a step. `FULL` would add an fsync to every commit (every message of an
/// executor round) to protect against that rarer case, which we judge not worth it.
fn configure(connection: &Connection, path: &Path) -> Result<(), StoreError> {
    let set = |result: rusqlite::Result<()>| result.map_err(|source| open_error(path, source));
    let mode: String = connection
        .pragma_update_and_check(None, "journal_mode", "wal", |row| row.get(0))
        .map_err(|source| open_error(path, source))?;
    if !mode.eq_ignore_ascii_case("wal") {
        // Refuse rather than run without the crash guarantees (e.g. a file system that
        // cannot hold the WAL's shared memory).
        return Err(StoreError::NoWal { path: path.to_owned(), mode });
    }
    set(connection.pragma_update(None, "synchronous", "NORMAL"))?;
    set(connection.pragma_update(None, "foreign_keys", true))?;
    set(connection.busy_timeout(BUSY_TIMEOUT))
}

fn open_error(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Open { path: path.to_owned(), source }
}
