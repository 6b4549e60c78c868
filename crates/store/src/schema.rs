//! The database schema, as the list of migrations that builds it.
//!
//! Migration `i` (0-based) takes the database from `PRAGMA user_version = i` to `i + 1`.
//! Append new migrations; never edit one that has shipped.
//!
//! Tables (schema version 1):
//! - `chats`: one row per chat. `seq` orders chats by creation (newest first in lists);
//!   `id` is the opaque id the API shows. Booleans are 0/1.
//! - `chat_state`: one row per chat, created with it: the lifecycle `phase` and the waiting
//!   question card `plan_pending` (JSON of `PlanPending`, NULL when none).
//! - `messages`: the chat's messages. `seq` (AUTOINCREMENT, never reused, so it only grows
//!   even across deletions) is the order the UI shows. `role` and `content` are columns;
//!   `body` is the JSON of the role's remaining fields (`files`, `plan_answer`, `questions`,
//!   `plan`, `tool_calls`, `tool_call_id`, `name`, `is_error`). `kind` is derived from the
//!   body on every write so that steps can find "the first user message" or "the last plan
//!   card" in SQL: `user` (a user turn), `answer` (a synthetic `plan_answer` message),
//!   `question_card`, `plan_card`, `assistant` (executor rounds and answers), `tool`.
//! - `plan_revisions`: every revision of the chat's plan document (JSON), numbered 1, 2, …
//!   The current plan is the highest revision; its `approval` changes in place.
//! - `task_lists`: the chat's `turn_plan` task list, whole, as JSON. No row = no list;
//!   an empty list is never stored.
//!
//! Schema version 2 (DESIGN §12) adds:
//! - `plan_changes`: the executor's requests to change the approved plan, each with its
//!   `status` (`pending | approved | rejected`) beside the request's JSON (`PlanChange`);
//!   `seq` orders them. Answered requests are kept: they are the plan's history.
//! - `chat_state.completion`: the completion record of the chat's plan (JSON of
//!   `Completion`), NULL until its steps are all finished.
//!
//! Schema version 3 (DESIGN §13) rebuilds `messages` so that `role` and `kind` also take
//! `compaction`: a summary that stands for earlier messages in the model's view, stored
//! beside them (the rows keep their `seq`, and the counter continues, so order and the
//! never-reused rule survive).
//!
//! Schema version 4 adds to `chat_state`:
//! - `stops`: the chat's log of executor stops and continues since its plan was approved
//!   (JSON of `StopLog`, NULL when empty); its `current` stop is `state.stopped`;
//! - `plans_again`: 1 when the chat's planning was cancelled, so its next message plans
//!   again (DESIGN §2: the cancelled chat is the chat right after its first message); the
//!   next user turn clears it.
//!
//! Schema version 5 adds `checkpoints`: the checkpoints Preflight took of the chat's
//! workspace (issue 31), numbered `n` from 1, each with its shadow repository's commit and
//! the JSON of `Checkpoint` (why it was taken, the tasks started and closed, what changed
//! since the one before, the files it left out, and the task list as it stood).
//!
//! Schema version 6 adds `chats.scope`: the JSON list of folders or files, relative to the
//! workspace, that the chat's planning is limited to (DESIGN §14); NULL means the whole
//! workspace (an empty list is stored as NULL).
//!
//! Schema version 7 (issue 33) adds full-text search: `chats_fts` over the titles of
//! `searchable_chats` and `messages_fts` over the content of `searchable_messages` (a view
//! of `messages` without tool results and compaction records, whose bulk would bury the
//! conversation); both views write ё as е, so either finds both. Both are
//! FTS5 external-content tables (`unicode61`, `remove_diacritics 2`, prefix indexes of 2
//! and 3 characters) keyed by the rows' `seq`; triggers on `chats` and `messages` keep them
//! in step in the same transaction as the rows they index (cascaded deletes included), and
//! the migration indexes the rows already stored. A rebuild of `chats` or `messages` must
//! create its triggers again.
//!
//! Schema version 8 (issue 50, DESIGN §15) adds `chats.model` and `chats.planner_model` (the
//! JSON of the chat's `ModelChoice`, NULL for the configured default) and `model_calls`: one
//! row per model call with the usage its provider reported (`input_tokens` counts cached
//! prompt tokens too), the phase it served, the provider and model, the context window it
//! had, and its cost in USD at the prices set when it ran (NULL without prices).
//!
//! Schema version 9 (issue 51, DESIGN §15 "Fork") adds what a fork reads:
//! - `chat_points`: the chat as it stood right after each transaction that stored (or
//!   edited) one of its messages: `first_seq` and `seq` are the first and the last of its
//!   messages that transaction wrote, `state` the JSON of the phase, the waiting card, the
//!   stop log, the completion, how many plan revisions there were and the latest one's
//!   approval, the plan changes' statuses and the last model call, and `task_list` the list
//!   (NULL: none). A fork at a message takes the point whose range holds it.
//! - `checkpoints.point`: the chat's latest point when the checkpoint was taken (NULL for
//!   those taken before), which a fork at the checkpoint starts from.
//! - `chats.forked_from`: the JSON of `ForkedFrom` (the chat and the message or checkpoint a
//!   fork was made from, with the original's title then), NULL for a chat that is no fork.
//!
//! Schema version 10 (issue 54, DESIGN §18) adds `chats.worktree`: the JSON of the chat's
//! own git `Worktree` (the user's repository, the worktree's folder, its branch, where it
//! started and what became of it), NULL for a chat working in its workspace itself. While
//! it is set, `chats.workspace` is the worktree's folder.
//!
//! Every table but `chats` cascades from `chats(id)`, so deleting a chat deletes its rows.

/// The schema migrations, oldest first. `user_version` = how many have been applied.
pub(super) const MIGRATIONS: &[&str] = &[
    r#"
CREATE TABLE chats (
    seq          INTEGER PRIMARY KEY AUTOINCREMENT,
    id           TEXT NOT NULL UNIQUE,
    title        TEXT NOT NULL,
    workspace    TEXT,
    plan_mode    INTEGER NOT NULL CHECK (plan_mode IN (0, 1)),
    auto_approve INTEGER NOT NULL CHECK (auto_approve IN (0, 1)),
    save_plans   INTEGER NOT NULL CHECK (save_plans IN (0, 1)),
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);

CREATE TABLE chat_state (
    chat_id      TEXT PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    phase        TEXT NOT NULL
                 CHECK (phase IN ('planning', 'questions', 'awaiting_approval', 'executing', 'idle')),
    plan_pending TEXT
) WITHOUT ROWID;

CREATE TABLE messages (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    chat_id    TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
    kind       TEXT NOT NULL
               CHECK (kind IN ('user', 'answer', 'question_card', 'plan_card', 'assistant', 'tool')),
    content    TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX messages_by_chat ON messages (chat_id, seq);

CREATE TABLE plan_revisions (
    chat_id  TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    revision INTEGER NOT NULL CHECK (revision >= 1),
    document TEXT NOT NULL,
    PRIMARY KEY (chat_id, revision)
) WITHOUT ROWID;

CREATE TABLE task_lists (
    chat_id TEXT PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    list    TEXT NOT NULL
) WITHOUT ROWID;
"#,
    r#"
CREATE TABLE plan_changes (
    seq     INTEGER PRIMARY KEY AUTOINCREMENT,
    id      TEXT NOT NULL UNIQUE,
    chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    status  TEXT NOT NULL CHECK (status IN ('pending', 'approved', 'rejected')),
    change  TEXT NOT NULL
);
CREATE INDEX plan_changes_by_chat ON plan_changes (chat_id, seq);

ALTER TABLE chat_state ADD COLUMN completion TEXT;
"#,
    r#"
CREATE TABLE messages_v3 (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    chat_id    TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool', 'compaction')),
    kind       TEXT NOT NULL
               CHECK (kind IN ('user', 'answer', 'question_card', 'plan_card', 'assistant', 'tool', 'compaction')),
    content    TEXT NOT NULL,
    body       TEXT NOT NULL,
    created_at TEXT NOT NULL
);
INSERT INTO messages_v3 (seq, id, chat_id, role, kind, content, body, created_at)
    SELECT seq, id, chat_id, role, kind, content, body, created_at FROM messages;
-- A seq is never reused, even after deletions: the new table continues the old counter.
UPDATE sqlite_sequence
    SET seq = (SELECT max(seq) FROM sqlite_sequence WHERE name IN ('messages', 'messages_v3'))
    WHERE name = 'messages_v3';
INSERT INTO sqlite_sequence (name, seq)
    SELECT 'messages_v3', seq FROM sqlite_sequence
    WHERE name = 'messages'
      AND NOT EXISTS (SELECT 1 FROM sqlite_sequence WHERE name = 'messages_v3');
DROP TABLE messages;
ALTER TABLE messages_v3 RENAME TO messages;
CREATE INDEX messages_by_chat ON messages (chat_id, seq);
"#,
    r#"
ALTER TABLE chat_state ADD COLUMN stops TEXT;
ALTER TABLE chat_state ADD COLUMN plans_again INTEGER NOT NULL DEFAULT 0
    CHECK (plans_again IN (0, 1));
"#,
    // Version 5: the checkpoints Preflight takes of a chat's workspace (the files are in the
    // chat's shadow repository under `checkpoints/`; a row keeps its number, commit and the
    // task list as it stood, so a restore puts both back).
    r#"
CREATE TABLE checkpoints (
    chat_id    TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    n          INTEGER NOT NULL CHECK (n > 0),
    commit_id  TEXT NOT NULL CHECK (length(commit_id) = 40),
    checkpoint TEXT NOT NULL,
    PRIMARY KEY (chat_id, n)
) WITHOUT ROWID;
"#,
    // Version 6: the chat's planning scope (DESIGN §14).
    r#"
ALTER TABLE chats ADD COLUMN scope TEXT;
"#,
    // Version 7: full-text search over titles and messages (issue 33).
    r#"
-- Russian writes ё and е for one letter (most text and most searches use е): both are
-- indexed and searched as е. The folded text is as long as the original, byte for byte, so
-- a snippet of it maps back onto the original's letters (store/search.rs, `unfold`).
CREATE VIEW searchable_chats AS
    SELECT seq, replace(replace(title, 'ё', 'е'), 'Ё', 'Е') AS title FROM chats;
CREATE VIRTUAL TABLE chats_fts USING fts5(
    title, content = 'searchable_chats', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);
CREATE VIEW searchable_messages AS
    SELECT seq, replace(replace(content, 'ё', 'е'), 'Ё', 'Е') AS content FROM messages
    WHERE kind NOT IN ('tool', 'compaction');
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content = 'searchable_messages', content_rowid = 'seq',
    tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3'
);

CREATE TRIGGER chats_fts_insert AFTER INSERT ON chats BEGIN
    INSERT INTO chats_fts (rowid, title)
        VALUES (new.seq, replace(replace(new.title, 'ё', 'е'), 'Ё', 'Е'));
END;
CREATE TRIGGER chats_fts_delete AFTER DELETE ON chats BEGIN
    INSERT INTO chats_fts (chats_fts, rowid, title)
        VALUES ('delete', old.seq, replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'));
END;
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title ON chats
    WHEN old.title IS NOT new.title BEGIN
    INSERT INTO chats_fts (chats_fts, rowid, title)
        VALUES ('delete', old.seq, replace(replace(old.title, 'ё', 'е'), 'Ё', 'Е'));
    INSERT INTO chats_fts (rowid, title)
        VALUES (new.seq, replace(replace(new.title, 'ё', 'е'), 'Ё', 'Е'));
END;

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages
    WHEN new.kind NOT IN ('tool', 'compaction') BEGIN
    INSERT INTO messages_fts (rowid, content)
        VALUES (new.seq, replace(replace(new.content, 'ё', 'е'), 'Ё', 'Е'));
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages
    WHEN old.kind NOT IN ('tool', 'compaction') BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
        VALUES ('delete', old.seq, replace(replace(old.content, 'ё', 'е'), 'Ё', 'Е'));
END;
-- One trigger, the old entry out before the new one in: the other order would delete the
-- words both share.
CREATE TRIGGER messages_fts_update AFTER UPDATE OF kind, content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content)
        SELECT 'delete', old.seq, replace(replace(old.content, 'ё', 'е'), 'Ё', 'Е')
        WHERE old.kind NOT IN ('tool', 'compaction');
    INSERT INTO messages_fts (rowid, content)
        SELECT new.seq, replace(replace(new.content, 'ё', 'е'), 'Ё', 'Е')
        WHERE new.kind NOT IN ('tool', 'compaction');
END;

INSERT INTO chats_fts (chats_fts) VALUES ('rebuild');
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');
"#,
    r#"
ALTER TABLE chats ADD COLUMN model TEXT;
ALTER TABLE chats ADD COLUMN planner_model TEXT;

CREATE TABLE model_calls (
    seq                 INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id             TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    phase               TEXT NOT NULL CHECK (phase IN ('planning', 'execution')),
    provider            TEXT NOT NULL,
    model               TEXT NOT NULL,
    input_tokens        INTEGER NOT NULL CHECK (input_tokens >= 0),
    output_tokens       INTEGER NOT NULL CHECK (output_tokens >= 0),
    cached_input_tokens INTEGER NOT NULL CHECK (cached_input_tokens >= 0),
    context_window      INTEGER,
    cost_usd            REAL CHECK (cost_usd IS NULL OR cost_usd >= 0),
    created_at          TEXT NOT NULL
);
CREATE INDEX model_calls_by_chat ON model_calls (chat_id, seq);
"#,
    // Version 9: what a fork reads (issue 51): the chat's points, a checkpoint's point, and
    // where a fork came from.
    r#"
CREATE TABLE chat_points (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id   TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    first_seq INTEGER NOT NULL,
    seq       INTEGER NOT NULL CHECK (seq >= first_seq),
    state     TEXT NOT NULL,
    task_list TEXT,
    UNIQUE (chat_id, seq)
);
ALTER TABLE checkpoints ADD COLUMN point INTEGER;
ALTER TABLE chats ADD COLUMN forked_from TEXT;
"#,
    // Version 10: a chat's own git worktree (issue 54).
    r#"
ALTER TABLE chats ADD COLUMN worktree TEXT;
"#,
];

#[cfg(test)]
mod tests {
    use rusqlite::Connection;

    use super::MIGRATIONS;
    use crate::migrations::migrate;

    #[test]
    fn version_3_keeps_every_message_its_order_and_the_never_reused_counter() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut sql = Connection::open(&path).unwrap();
        migrate(&mut sql, &path, &MIGRATIONS[..2]).unwrap();
        sql.execute_batch(
            "INSERT INTO chats (id, title, plan_mode, auto_approve, save_plans, created_at, updated_at)
                 VALUES ('c', 't', 1, 0, 0, 'now', 'now');
             INSERT INTO chat_state (chat_id, phase) VALUES ('c', 'idle');
             INSERT INTO messages (id, chat_id, role, kind, content, body, created_at)
                 VALUES ('m1', 'c', 'user', 'user', 'a', '{}', 'now'),
                        ('m2', 'c', 'assistant', 'assistant', 'b', '{}', 'now'),
                        ('m3', 'c', 'tool', 'tool', 'c', '{}', 'now');
             DELETE FROM messages WHERE id = 'm3';",
        )
        .unwrap();
        migrate(&mut sql, &path, MIGRATIONS).unwrap();
        sql.execute(
            "INSERT INTO messages (id, chat_id, role, kind, content, body, created_at)
                 VALUES ('k', 'c', 'compaction', 'compaction', 's', '{}', 'now')",
            [],
        )
        .unwrap();
        let mut rows = sql.prepare("SELECT seq, id FROM messages ORDER BY seq").unwrap();
        let rows: Vec<(i64, String)> = rows
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert_eq!(
            rows,
            [(1, "m1".into()), (2, "m2".into()), (4, "k".into())],
            "seq 3 is never reused"
        );
        let bad = sql.execute(
            "INSERT INTO messages (id, chat_id, role, kind, content, body, created_at)
                 VALUES ('x', 'c', 'robot', 'user', 's', '{}', 'now')",
            [],
        );
        assert!(bad.is_err(), "the roles are still checked");
    }

    #[test]
    fn version_7_indexes_what_a_version_6_database_holds() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("db.sqlite");
        let mut sql = Connection::open(&path).unwrap();
        sql.pragma_update(None, "foreign_keys", true).unwrap();
        migrate(&mut sql, &path, &MIGRATIONS[..6]).unwrap();
        sql.execute_batch(
            "INSERT INTO chats (id, title, plan_mode, auto_approve, save_plans, created_at, updated_at, scope)
                 VALUES ('c', 'Квартальный отчёт', 1, 0, 0, 'now', 'now', 'src'),
                        ('d', 'CSV export', 1, 0, 0, 'now', 'now', NULL);
             INSERT INTO chat_state (chat_id, phase) VALUES ('c', 'idle'), ('d', 'idle');
             INSERT INTO messages (id, chat_id, role, kind, content, body, created_at)
                 VALUES ('m1', 'c', 'user', 'user', 'Посчитай продажи за март', '{}', 'now'),
                        ('m2', 'd', 'assistant', 'assistant', 'The orders load now', '{}', 'now'),
                        ('m3', 'd', 'tool', 'tool', 'orders.csv: 12 rows', '{}', 'now');",
        )
        .unwrap();
        migrate(&mut sql, &path, MIGRATIONS).unwrap();
        let hits = |table: &str, words: &str| -> Vec<i64> {
            let query = format!("SELECT rowid FROM {table} WHERE {table} MATCH ?1 ORDER BY rowid");
            let mut statement = sql.prepare(&query).unwrap();
            statement.query_map([words], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
        };
        assert_eq!(hits("chats_fts", "КВАРТАЛЬНЫЙ"), [1]);
        assert_eq!(hits("chats_fts", "отчет"), [1], "ё is searched as е");
        assert_eq!(hits("chats_fts", "csv"), [2]);
        assert_eq!(hits("messages_fts", "продажи"), [1]);
        assert_eq!(hits("messages_fts", "orders"), [2], "the tool's result is not indexed");
        for table in ["chats_fts", "messages_fts"] {
            let check =
                format!("INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)");
            sql.execute(&check, []).unwrap();
        }
        sql.execute("DELETE FROM chats WHERE id = 'd'", []).unwrap();
        assert!(hits("messages_fts", "orders").is_empty(), "the cascade reached the index");
    }
}
