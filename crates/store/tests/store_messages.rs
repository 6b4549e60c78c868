//! Messages: every shape of DESIGN §2 round-trips through the store unchanged, in order.

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use preflight_protocol::chat::{Message, MessageBody};
    use preflight_protocol::planner::Approval;
    use preflight_store::{Entity, StoreError};
    use preflight_testkit::store::fixtures::{self, settings};
    use preflight_testkit::store::{raw, temp_store};
    use serde_json::json;

    /// One message of every stored shape, in a plausible order.
    fn every_shape() -> Vec<Message> {
        let questions = fixtures::questions(1, 3);
        let mut answered = questions.clone();
        answered[0].answer = Some("left".to_owned());
        let mut document = fixtures::plan_document("Word counter", 2);
        document.revision = 1;
        document.approval = Approval::Approved;
        let mut plan_card = fixtures::plan_card(&document);
        if let MessageBody::Assistant { plan, .. } = &mut plan_card.body {
            *plan = Some(Box::new(document));
        }
        let mut messages = vec![
            fixtures::user("Write a word counter"),
            fixtures::question_card(&answered),
            fixtures::feedback(&preflight_testkit::store::fixtures::answer(
                "Round 1, question 1: which way?",
                "left",
            )),
            plan_card,
        ];
        messages.extend(fixtures::tool_round("call_1", false));
        messages.extend(fixtures::tool_round("call_2", true));
        messages.push(fixtures::assistant("Done."));
        messages
    }

    #[test]
    fn every_message_shape_round_trips_in_insertion_order() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("shapes")).unwrap();
        let messages = every_shape();
        store.write(|tx| messages.iter().try_for_each(|m| tx.insert_message(&chat.id, m))).unwrap();
        assert_eq!(store.messages(&chat.id).unwrap(), messages);
        for message in &messages {
            assert_eq!(&store.message(&chat.id, &message.id).unwrap(), message);
        }
    }

    #[test]
    fn stored_messages_serialise_in_the_api_shapes() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("wire")).unwrap();
        let messages = every_shape();
        store.write(|tx| messages.iter().try_for_each(|m| tx.insert_message(&chat.id, m))).unwrap();
        let stored = store.messages(&chat.id).unwrap();
        let wire: Vec<serde_json::Value> =
            stored.iter().map(|m| serde_json::to_value(m).unwrap()).collect();
        let keys = |value: &serde_json::Value| -> Vec<String> {
            let mut keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
            keys.sort();
            keys
        };
        let expected: [&[&str]; 5] = [
            &["content", "created_at", "files", "id", "plan_answer", "role"],
            &["content", "created_at", "id", "plan", "questions", "role"],
            &["content", "created_at", "files", "id", "plan_answer", "role"],
            &["content", "created_at", "id", "plan", "questions", "role"],
            &["content", "created_at", "id", "plan", "questions", "role", "tool_calls"],
        ];
        for (value, expected) in wire.iter().zip(expected) {
            assert_eq!(keys(value), expected, "{value}");
        }
        assert_eq!(wire[1]["plan"], json!(null));
        assert_eq!(wire[3]["questions"], json!(null));
        assert_eq!(wire[2]["plan_answer"], json!(true));
        assert_eq!(wire[5]["role"], json!("tool"));
        assert_eq!(
            keys(&wire[5]),
            ["content", "created_at", "id", "is_error", "name", "role", "tool_call_id"]
        );
    }

    #[test]
    fn role_and_content_are_columns_and_the_rest_of_the_body_is_json() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("columns")).unwrap();
        let round = fixtures::tool_round("call_9", true);
        store.append_messages(&chat.id, &round).unwrap();
        let rows: Vec<(String, String, String, String)> = raw(&store)
            .prepare("SELECT role, kind, content, body FROM messages ORDER BY seq")
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!((rows[0].0.as_str(), rows[0].1.as_str()), ("assistant", "assistant"));
        assert_eq!(rows[0].2, "Reading the entry point.");
        let body: serde_json::Value = serde_json::from_str(&rows[0].3).unwrap();
        assert!(body.get("role").is_none() && body.get("content").is_none());
        assert_eq!(body["tool_calls"][0]["id"], json!("call_9"));
        assert_eq!((rows[1].0.as_str(), rows[1].2.as_str()), ("tool", "no such file"));
        let body: serde_json::Value = serde_json::from_str(&rows[1].3).unwrap();
        assert_eq!(
            body,
            json!({"tool_call_id": "call_9", "name": "mcp_filesystem_read_text_file", "is_error": true})
        );
    }

    #[test]
    fn order_is_insertion_order_across_many_writes_and_deletions() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("order")).unwrap();
        let mut expected = Vec::new();
        for n in 0..40 {
            let message = fixtures::assistant(&format!("message {n}"));
            store.append_messages(&chat.id, std::slice::from_ref(&message)).unwrap();
            expected.push(message);
        }
        let cut = expected[24].id.clone();
        let deleted = store.write(|tx| tx.delete_messages_after(&chat.id, &cut)).unwrap();
        assert_eq!(deleted, 15);
        expected.truncate(25);
        let late = fixtures::assistant("after the cut");
        store.append_messages(&chat.id, std::slice::from_ref(&late)).unwrap();
        expected.push(late);
        assert_eq!(store.messages(&chat.id).unwrap(), expected);
    }

    #[test]
    fn update_message_keeps_the_place_and_reclassifies_the_body() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("update")).unwrap();
        let messages = [fixtures::assistant("one"), fixtures::assistant("two")];
        store.append_messages(&chat.id, &messages).unwrap();
        let mut changed = messages[0].clone();
        changed.body = MessageBody::Assistant {
            content: "one, revised".to_owned(),
            questions: Some(fixtures::questions(1, 1)),
            plan: None,
            tool_calls: vec![],
            notice: None,
        };
        store.write(|tx| tx.update_message(&chat.id, &changed)).unwrap();
        assert_eq!(store.messages(&chat.id).unwrap(), [changed, messages[1].clone()]);
        let kind: String = raw(&store)
            .query_row("SELECT kind FROM messages WHERE id = ?1", [&messages[0].id], |row| {
                row.get(0)
            })
            .unwrap();
        assert_eq!(kind, "question_card");
    }

    #[test]
    fn unknown_or_foreign_messages_are_not_found() {
        let (_dir, store) = temp_store();
        let mine = store.create_chat(&settings("mine")).unwrap();
        let other = store.create_chat(&settings("other")).unwrap();
        let message = fixtures::assistant("hello");
        store.append_messages(&mine.id, std::slice::from_ref(&message)).unwrap();
        let not_found = |result: Result<Message, StoreError>| {
            matches!(result, Err(StoreError::NotFound { entity: Entity::Message, .. }))
        };
        assert!(not_found(store.message(&other.id, &message.id)));
        assert!(not_found(store.message(&mine.id, &"nope".into())));
        let missing_chat = store.messages(&"nope".into()).unwrap_err();
        assert!(matches!(missing_chat, StoreError::NotFound { entity: Entity::Chat, .. }));
        let into_nowhere =
            store.append_messages(&"nope".into(), &[fixtures::assistant("lost")]).unwrap_err();
        assert!(matches!(into_nowhere, StoreError::NotFound { entity: Entity::Chat, .. }));
    }

    #[test]
    fn a_card_with_both_questions_and_a_plan_is_refused() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("both")).unwrap();
        let mut card = fixtures::question_card(&fixtures::questions(1, 1));
        if let MessageBody::Assistant { plan, .. } = &mut card.body {
            *plan = Some(Box::new(fixtures::plan_document("both", 1)));
        }
        let error = store.write(|tx| tx.insert_message(&chat.id, &card)).unwrap_err();
        assert!(matches!(error, StoreError::InvalidInput { .. }), "{error:?}");
        assert!(store.messages(&chat.id).unwrap().is_empty());
    }

    #[test]
    fn synthetic_answers_never_count_as_user_turns() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("turns")).unwrap();
        let messages = every_shape();
        store.write(|tx| messages.iter().try_for_each(|m| tx.insert_message(&chat.id, m))).unwrap();
        assert_eq!(store.user_turn_count(&chat.id).unwrap(), 1);
        store.append_messages(&chat.id, &[fixtures::assistant("and?")]).unwrap();
        let second = fixtures::user("more");
        store
            .begin_user_turn(&chat.id, &second, preflight_protocol::chat::Phase::Executing)
            .unwrap();
        assert_eq!(store.user_turn_count(&chat.id).unwrap(), 2);
    }
}
