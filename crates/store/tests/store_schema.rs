//! Opening the file: WAL, migrations by `user_version`, refusal of newer schemas, and
//! corrupt rows read back as typed errors naming the table and row.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use crate::support::planning;
    use preflight_store::{Store, StoreError, SCHEMA_VERSION};
    use preflight_testkit::store::fixtures::{self, settings, tasks_from};
    use preflight_testkit::store::{raw, temp_store};

    fn user_version(store: &Store) -> i64 {
        raw(store).query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap()
    }

    #[test]
    fn a_new_file_gets_the_whole_schema_in_wal_mode() {
        let (_dir, store) = temp_store();
        assert_eq!(user_version(&store), SCHEMA_VERSION);
        let mode: String =
            raw(&store).query_row("PRAGMA journal_mode", [], |row| row.get(0)).unwrap();
        assert_eq!(mode, "wal");
    }

    #[test]
    fn reopening_migrates_nothing_and_keeps_the_data() {
        let (dir, store) = temp_store();
        let chat = store.create_chat(&settings("kept")).unwrap();
        planning::approved_chat(&store, &chat.id);
        let before = store.snapshot(&chat.id).unwrap();
        let path = store.path().to_owned();
        drop(store);
        for _ in 0..3 {
            let reopened = Store::open(&path).unwrap();
            assert_eq!(user_version(&reopened), SCHEMA_VERSION);
            assert_eq!(reopened.snapshot(&chat.id).unwrap(), before);
        }
        drop(dir);
    }

    #[test]
    fn a_schema_newer_than_the_code_is_refused_and_left_alone() {
        let (_dir, store) = temp_store();
        let path = store.path().to_owned();
        raw(&store).pragma_update(None, "user_version", SCHEMA_VERSION + 1).unwrap();
        drop(store);
        let error = Store::open(&path).err().expect("a newer schema is refused");
        let StoreError::SchemaTooNew { found, known, .. } = &error else { panic!("{error:?}") };
        assert_eq!((*found, *known), (SCHEMA_VERSION + 1, SCHEMA_VERSION));
        assert!(error.to_string().contains("newer"), "{error}");
        let connection = rusqlite::Connection::open(&path).unwrap();
        let version: i64 =
            connection.query_row("PRAGMA user_version", [], |row| row.get(0)).unwrap();
        assert_eq!(version, SCHEMA_VERSION + 1);
    }

    #[test]
    fn a_file_that_is_not_a_database_is_an_open_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("preflight.db");
        std::fs::write(&path, vec![b'x'; 4096]).unwrap();
        let error = Store::open(&path).err().expect("garbage is refused");
        assert!(matches!(error, StoreError::Open { .. }), "{error:?}");
    }

    /// Overwrites one column of one row with `value`, behind the store's back.
    fn corrupt(store: &Store, sql: &str, key: impl AsRef<str>, value: &str) {
        assert_eq!(raw(store).execute(sql, [value, key.as_ref()]).unwrap(), 1, "{sql}");
    }

    fn assert_corrupt(error: StoreError, table: &str, row: impl AsRef<str>) {
        let row = row.as_ref();
        match &error {
            StoreError::Corrupt { table: found, row: found_row, .. } => {
                assert_eq!((*found, found_row.as_str()), (table, row), "{error}");
                assert!(error.to_string().contains(table) && error.to_string().contains(row));
            }
            other => panic!("expected a corrupt {table} row, got {other:?}"),
        }
    }

    #[test]
    fn corrupt_json_in_any_table_is_a_typed_error_naming_table_and_row() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("corrupt")).unwrap();
        let document = planning::awaiting_approval(&store, &chat.id);
        let id = &chat.id;
        let first = store.messages(id).unwrap()[0].id.clone();

        corrupt(&store, "UPDATE messages SET body = ?1 WHERE id = ?2", &first, "{\"files\": 7}");
        assert_corrupt(store.messages(id).unwrap_err(), "messages", &first);
        assert_corrupt(store.message(id, &first).unwrap_err(), "messages", &first);
        corrupt(&store, "UPDATE messages SET body = ?1 WHERE id = ?2", &first, "[1, 2]");
        assert_corrupt(store.messages(id).unwrap_err(), "messages", &first);
        corrupt(&store, "UPDATE messages SET body = ?1 WHERE id = ?2", &first, "{\"files\": []}");

        corrupt(
            &store,
            "UPDATE plan_revisions SET document = ?1 WHERE chat_id = ?2",
            id,
            "{not json",
        );
        assert_corrupt(store.state(id).unwrap_err(), "plan_revisions", format!("{id}/1"));
        assert_corrupt(store.plan_revisions(id).unwrap_err(), "plan_revisions", format!("{id}/1"));
        let mut renumbered = document.clone();
        renumbered.revision = 5;
        let json = serde_json::to_string(&renumbered).unwrap();
        corrupt(&store, "UPDATE plan_revisions SET document = ?1 WHERE chat_id = ?2", id, &json);
        assert_corrupt(store.state(id).unwrap_err(), "plan_revisions", format!("{id}/1"));

        corrupt(
            &store,
            "UPDATE chat_state SET plan_pending = ?1 WHERE chat_id = ?2",
            id,
            "{\"round\": \"x\"}",
        );
        assert_corrupt(store.state(id).unwrap_err(), "chat_state", id);
    }

    #[test]
    fn a_corrupt_task_list_is_a_typed_error_and_a_corrupt_row_blocks_no_other_chat() {
        let (_dir, store) = temp_store();
        let broken = store.create_chat(&settings("broken")).unwrap();
        let fine = store.create_chat(&settings("fine")).unwrap();
        let document = fixtures::plan_document("p", 2);
        store.save_task_list(&broken.id, &tasks_from(&document)).unwrap();
        store.save_task_list(&fine.id, &tasks_from(&document)).unwrap();
        corrupt(
            &store,
            "UPDATE task_lists SET list = ?1 WHERE chat_id = ?2",
            &broken.id,
            "{\"tasks\": 3}",
        );
        assert_corrupt(store.task_list(&broken.id).unwrap_err(), "task_lists", &broken.id);
        assert_eq!(store.task_list(&fine.id).unwrap(), tasks_from(&document));
    }
}
