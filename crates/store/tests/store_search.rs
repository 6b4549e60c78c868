//! Full-text search in the store (schema v7): titles and messages found in English and
//! Russian (ё and е as one letter), the index in step with every write (edits, deletes, cascades), user text never
//! read as FTS5 syntax, and pages that neither skip nor repeat while chats are created.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use std::collections::BTreeSet;
    use std::sync::Arc;

    use preflight_protocol::chat::{Message, MessageBody, Phase};
    use preflight_protocol::{ChatId, MessageId};
    use preflight_store::{fts_query, Store};
    use preflight_testkit::store::fixtures::{self, settings};
    use preflight_testkit::store::{raw, temp_store};

    /// The chat and message ids a search finds, newest first (titles, then messages).
    fn found(store: &Store, text: &str) -> Vec<(ChatId, Option<MessageId>)> {
        let Some(query) = fts_query(text) else { return Vec::new() };
        let titles = store.read(|tx| tx.search_titles(&query, None, 100)).unwrap();
        let messages = store.read(|tx| tx.search_messages(&query, None, 100)).unwrap();
        titles
            .rows
            .into_iter()
            .chain(messages.rows)
            .map(|hit| (hit.chat_id, hit.message_id))
            .collect()
    }

    fn chat_with(store: &Store, title: &str, text: &str) -> (ChatId, MessageId) {
        let chat = store.create_chat(&settings(title)).unwrap().id;
        let message = fixtures::user(text);
        store.begin_user_turn(&chat, &message, Phase::Executing).unwrap();
        (chat, message.id)
    }

    /// FTS5's own check that the index holds exactly what its content rows say.
    fn assert_index_in_step(store: &Store) {
        let sql = raw(store);
        for table in ["chats_fts", "messages_fts"] {
            let check =
                format!("INSERT INTO {table} ({table}, rank) VALUES ('integrity-check', 1)");
            sql.execute(&check, []).unwrap_or_else(|error| panic!("{table}: {error}"));
        }
    }

    #[test]
    fn titles_and_messages_are_found_in_english_and_russian_case_folded() {
        let (_dir, store) = temp_store();
        let (export, asked) = chat_with(&store, "CSV export", "Make the ORDERS table load");
        let (report, spoken) = chat_with(&store, "Квартальный отчёт", "Посчитай ПРОДАЖИ за март");
        assert_eq!(found(&store, "csv"), [(export.clone(), None)], "a title, case folded");
        assert_eq!(found(&store, "orders table"), [(export.clone(), Some(asked.clone()))]);
        assert_eq!(found(&store, "продажи"), [(report.clone(), Some(spoken.clone()))]);
        assert_eq!(found(&store, "КВАРТАЛЬНЫЙ"), [(report.clone(), None)], "Cyrillic case folded");
        assert_eq!(
            found(&store, "прод"),
            [(report.clone(), Some(spoken))],
            "the typed word as a prefix"
        );
        assert_eq!(found(&store, "ord"), [(export, Some(asked))]);
        assert!(found(&store, "прод ").is_empty(), "a finished word is whole");
    }

    #[test]
    fn yo_and_ye_find_each_other_and_the_hit_shows_what_was_written() {
        let (_dir, store) = temp_store();
        let (report, said) = chat_with(&store, "Квартальный отчёт", "Ещё раз: всё посчитано, Ёлка");
        assert_eq!(found(&store, "отчет"), [(report.clone(), None)], "е finds ё");
        assert_eq!(found(&store, "ОТЧЁТ"), [(report.clone(), None)], "ё finds ё");
        assert_eq!(found(&store, "еще елка"), [(report.clone(), Some(said.clone()))]);
        let query = fts_query("отчет").unwrap();
        let titles = store.read(|tx| tx.search_titles(&query, None, 10)).unwrap();
        assert_eq!(titles.rows[0].marked, "Квартальный \u{FDD0}отчёт\u{FDD1}");
        let query = fts_query("все").unwrap();
        let messages = store.read(|tx| tx.search_messages(&query, None, 10)).unwrap();
        assert_eq!(messages.rows[0].marked, "Ещё раз: \u{FDD0}всё\u{FDD1} посчитано, Ёлка");
        assert_index_in_step(&store);
    }

    #[test]
    fn tool_results_and_compaction_records_are_not_searched() {
        let (_dir, store) = temp_store();
        let (chat, _) = chat_with(&store, "Reading", "look at main");
        store.append_messages(&chat, &fixtures::tool_round("c1", false)).unwrap();
        let round: Vec<MessageId> =
            found(&store, "entry point").into_iter().filter_map(|hit| hit.1).collect();
        assert_eq!(round.len(), 1, "the assistant's words are searched");
        assert!(found(&store, "fn main").is_empty(), "the tool's result is not");
        assert_index_in_step(&store);
    }

    #[test]
    fn an_edited_or_deleted_message_a_renamed_or_deleted_chat_leave_no_stale_hit() {
        let (_dir, store) = temp_store();
        let (chat, message) = chat_with(&store, "Plans", "deploy the staging server");
        let (other, again) = chat_with(&store, "Other plans", "staging again");
        let mut edited = store.read(|tx| tx.message(&chat, &message)).unwrap();
        if let MessageBody::User { content, .. } = &mut edited.body {
            *content = "deploy production".into();
        }
        store.write(|tx| tx.update_message(&chat, &edited)).unwrap();
        assert_eq!(
            found(&store, "staging"),
            [(other.clone(), Some(again))],
            "the old words are gone"
        );
        assert_eq!(found(&store, "production"), [(chat.clone(), Some(message.clone()))]);
        store.write(|tx| tx.delete_message(&chat, &message)).unwrap();
        assert!(found(&store, "production").is_empty(), "a deleted message");
        store.update_chat(&chat, &settings("Launch")).unwrap();
        assert_eq!(found(&store, "plans"), [(other.clone(), None)], "the old title is gone");
        assert_eq!(found(&store, "launch"), [(chat, None)]);
        store.delete_chat(&other).unwrap();
        assert!(
            found(&store, "staging").is_empty() && found(&store, "other").is_empty(),
            "a deleted chat's title and messages"
        );
        assert_index_in_step(&store);
    }

    #[test]
    fn fts_syntax_in_user_text_is_searched_as_words() {
        let (_dir, store) = temp_store();
        let (chat, message) = chat_with(&store, "Syntax", "use NEAR and OR in the col:value query");
        for text in
            [r#"NEAR(col"#, r#"OR ""#, "col:value", "\"unbalanced", "a*b", "^near", "-or +and"]
        {
            let hits = found(&store, text);
            assert!(hits.iter().all(|hit| hit.0 == chat), "{text:?}: {hits:?}");
        }
        assert_eq!(found(&store, "col:value"), [(chat, Some(message))]);
        assert!(found(&store, "*** \" \" ()").is_empty(), "no words, no hits, no error");
    }

    #[test]
    fn pages_neither_skip_nor_repeat_chats_created_meanwhile() {
        let (_dir, store) = temp_store();
        let store = Arc::new(store);
        let before: BTreeSet<ChatId> = (0..120)
            .map(|n| store.create_chat(&settings(&format!("old {n}"))).unwrap().id)
            .collect();
        let writer = {
            let store = Arc::clone(&store);
            std::thread::spawn(move || {
                (0..200)
                    .map(|n| store.create_chat(&settings(&format!("new {n}"))).unwrap().id)
                    .collect::<Vec<_>>()
            })
        };
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = store.read(|tx| tx.chat_page(cursor, 7)).unwrap();
            seen.extend(page.rows.into_iter().map(|chat| chat.id));
            match page.next_before {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        let created: BTreeSet<ChatId> = writer.join().unwrap().into_iter().collect();
        let unique: BTreeSet<ChatId> = seen.iter().cloned().collect();
        assert_eq!(unique.len(), seen.len(), "no chat twice");
        assert!(before.is_subset(&unique), "every chat that existed when paging began");
        assert!(unique.difference(&before).all(|id| created.contains(id)));
        let seqs: Vec<i64> = {
            let sql = raw(&store);
            seen.iter()
                .map(|id| {
                    sql.query_row("SELECT seq FROM chats WHERE id = ?1", [id], |row| row.get(0))
                        .unwrap()
                })
                .collect()
        };
        assert!(seqs.windows(2).all(|pair| pair[0] > pair[1]), "newest first throughout");
    }

    #[test]
    fn a_long_chat_pages_back_from_its_latest_messages() {
        let (_dir, store) = temp_store();
        let (chat, _) = chat_with(&store, "Long", "first");
        let said: Vec<Message> =
            (0..249).map(|n| fixtures::assistant(&format!("line {n}"))).collect();
        store.append_messages(&chat, &said).unwrap();
        let mut pages = Vec::new();
        let mut before = None;
        loop {
            let page = store.read(|tx| tx.message_page(&chat, before, 100)).unwrap();
            pages.push(page.rows.len());
            let first = page.rows.first().unwrap().id.clone();
            if before.is_none() {
                assert_eq!(page.rows.last().unwrap().id, said[248].id, "the latest page first");
                let from = store.read(|tx| tx.messages_from(&chat, &first)).unwrap();
                assert_eq!(from.rows.len(), 100);
                assert_eq!(from.next_before, page.next_before, "the same place to page back from");
            }
            match page.next_before {
                Some(next) => before = Some(next),
                None => break,
            }
        }
        assert_eq!(pages, [100, 100, 50]);
    }
}
