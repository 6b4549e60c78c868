//! Schema migrations by `PRAGMA user_version`, each applied in its own transaction.

use std::path::Path;

use rusqlite::{Connection, TransactionBehavior};

use super::error::StoreError;

/// Brings the database up to `migrations.len()`, refusing one that is already newer.
///
/// Each migration and its `user_version` bump commit together, so a crash between two
/// migrations leaves a database at a known version that the next open continues from.
/// The version is re-read under the write lock: two processes opening the same new file
/// cannot both apply a migration.
pub(super) fn migrate(
    conn: &mut Connection,
    path: &Path,
    migrations: &[&str],
) -> Result<(), StoreError> {
    let known = migrations.len() as i64;
    if user_version(conn, path)? == known {
        return Ok(());
    }
    loop {
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|source| open_error(path, source))?;
        let version = user_version(&tx, path)?;
        if version > known {
            return Err(StoreError::SchemaTooNew { path: path.to_owned(), found: version, known });
        }
        if version == known {
            return Ok(());
        }
        let next = version + 1;
        let failed =
            |source| StoreError::Migration { path: path.to_owned(), version: next, source };
        tx.execute_batch(migrations[version as usize]).map_err(failed)?;
        tx.pragma_update(None, "user_version", next).map_err(failed)?;
        tx.commit().map_err(failed)?;
    }
}

/// The schema version recorded in the file (0 for a new file).
pub(super) fn user_version(conn: &Connection, path: &Path) -> Result<i64, StoreError> {
    let version: i64 = conn
        .pragma_query_value(None, "user_version", |row| row.get(0))
        .map_err(|source| open_error(path, source))?;
    if version < 0 {
        let reason = format!("negative schema version {version}");
        return Err(StoreError::Corrupt { table: "user_version", row: "0".into(), reason });
    }
    Ok(version)
}

fn open_error(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Open { path: path.to_owned(), source }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &[&str] = &["CREATE TABLE a (x INTEGER);", "CREATE TABLE b (y INTEGER);"];

    fn table_exists(conn: &Connection, name: &str) -> bool {
        let sql = "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?1";
        conn.query_row(sql, [name], |row| row.get::<_, i64>(0)).unwrap() == 1
    }

    #[test]
    fn applies_every_migration_once_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut conn = Connection::open(&path).unwrap();
        migrate(&mut conn, &path, &TWO[..1]).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), 1);
        migrate(&mut conn, &path, TWO).unwrap();
        migrate(&mut conn, &path, TWO).unwrap();
        assert_eq!(user_version(&conn, &path).unwrap(), 2);
        assert!(table_exists(&conn, "a") && table_exists(&conn, "b"));
    }

    #[test]
    fn a_failing_migration_rolls_back_only_itself() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut conn = Connection::open(&path).unwrap();
        let broken = [TWO[0], "CREATE TABLE c (z INTEGER); SELECT no_such_function();"];
        let error = migrate(&mut conn, &path, &broken).unwrap_err();
        assert!(matches!(error, StoreError::Migration { version: 2, .. }), "{error:?}");
        assert_eq!(user_version(&conn, &path).unwrap(), 1);
        assert!(table_exists(&conn, "a"));
        assert!(!table_exists(&conn, "c"));
    }

    #[test]
    fn refuses_a_newer_schema_and_leaves_it_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut conn = Connection::open(&path).unwrap();
        conn.pragma_update(None, "user_version", 7).unwrap();
        let error = migrate(&mut conn, &path, TWO).unwrap_err();
        assert!(matches!(error, StoreError::SchemaTooNew { found: 7, known: 2, .. }), "{error:?}");
        assert_eq!(user_version(&conn, &path).unwrap(), 7);
        assert!(!table_exists(&conn, "a"));
    }
}
