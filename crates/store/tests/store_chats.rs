//! Chats: create, read, list newest first, update, delete with everything stored for them.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use std::sync::Arc;

    use preflight_protocol::chat::{ChatSettings, Phase};
    use preflight_protocol::ChatId;
    use preflight_store::{Entity, Store, StoreError};
    use preflight_testkit::store::fixtures::{self, settings};
    use preflight_testkit::store::{raw, temp_store};

    #[test]
    fn a_created_chat_reads_back_with_an_idle_empty_state() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("first")).unwrap();
        assert_eq!(chat.id.as_str().len(), 32, "uuid v4, simple form: {}", chat.id);
        assert_eq!((chat.title.as_str(), chat.plan_mode, chat.save_plans), ("first", true, false));
        assert_eq!(chat.created_at, chat.updated_at);
        assert_eq!(store.get_chat(&chat.id).unwrap(), chat);
        let snapshot = store.snapshot(&chat.id).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Idle);
        assert!(snapshot.state.plan_pending.is_none() && snapshot.state.plan.is_none());
        assert!(snapshot.messages.is_empty() && snapshot.revisions.is_empty());
        assert!(snapshot.task_list.tasks.is_empty());
    }

    #[test]
    fn chats_are_listed_newest_first() {
        let (_dir, store) = temp_store();
        let ids: Vec<ChatId> = (0..5)
            .map(|n| store.create_chat(&settings(&format!("chat {n}"))).unwrap().id)
            .collect();
        store.delete_chat(&ids[4]).unwrap();
        let late = store.create_chat(&settings("late")).unwrap().id;
        let listed: Vec<ChatId> =
            store.list_chats().unwrap().into_iter().map(|chat| chat.id).collect();
        assert_eq!(
            listed,
            [late.clone(), ids[3].clone(), ids[2].clone(), ids[1].clone(), ids[0].clone()]
        );
    }

    #[test]
    fn update_replaces_title_and_settings_and_bumps_updated_at() {
        let (_dir, store) = temp_store();
        let chat = store.create_chat(&settings("before")).unwrap();
        let changed = ChatSettings {
            title: "after".to_owned(),
            workspace: None,
            plan_mode: false,
            auto_approve: true,
            save_plans: true,
            scope: Vec::new(),
        };
        let updated = store.update_chat(&chat.id, &changed).unwrap();
        assert_eq!(updated.title, "after");
        assert_eq!(
            (updated.workspace, updated.plan_mode, updated.auto_approve),
            (None, false, true)
        );
        assert!(updated.save_plans);
        assert_eq!(updated.created_at, chat.created_at);
        assert!(updated.updated_at >= chat.updated_at);
        assert_eq!(store.get_chat(&chat.id).unwrap().title, "after");
        let missing = store.update_chat(&"nope".into(), &changed).unwrap_err();
        assert!(matches!(missing, StoreError::NotFound { entity: Entity::Chat, .. }));
    }

    #[test]
    fn deleting_a_chat_cascades_to_everything_stored_for_it() {
        let (_dir, store) = temp_store();
        let keep = store.create_chat(&settings("keep")).unwrap();
        let doomed = store.create_chat(&settings("doomed")).unwrap();
        for chat in [&keep, &doomed] {
            crate::support::planning::approved_chat(&store, &chat.id);
        }
        assert!(store.delete_chat(&doomed.id).unwrap());
        assert!(!store.delete_chat(&doomed.id).unwrap());
        let missing = store.get_chat(&doomed.id).unwrap_err();
        assert!(matches!(missing, StoreError::NotFound { entity: Entity::Chat, .. }));
        let connection = raw(&store);
        for table in ["chat_state", "messages", "plan_revisions", "task_lists"] {
            let count = |chat_id: &ChatId| -> i64 {
                let sql = format!("SELECT count(*) FROM {table} WHERE chat_id = ?1");
                connection.query_row(&sql, [chat_id], |row| row.get(0)).unwrap()
            };
            assert_eq!(count(&doomed.id), 0, "{table} kept rows of a deleted chat");
            assert!(count(&keep.id) > 0, "{table} lost rows of another chat");
        }
    }

    #[test]
    fn the_store_is_shared_across_threads() {
        fn send_and_sync<T: Send + Sync>() {}
        send_and_sync::<Store>();
        let (_dir, store) = temp_store();
        let store = Arc::new(store);
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let store = Arc::clone(&store);
                std::thread::spawn(move || {
                    for n in 0..10 {
                        let chat = store.create_chat(&settings(&format!("{worker}/{n}"))).unwrap();
                        let message = fixtures::user("hi");
                        store.begin_user_turn(&chat.id, &message, Phase::Executing).unwrap();
                    }
                })
            })
            .collect();
        workers.into_iter().for_each(|worker| worker.join().unwrap());
        assert_eq!(store.list_chats().unwrap().len(), 40);
    }
}
