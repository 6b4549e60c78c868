//! The store's own checker (`Store::check`, behind `preflight check`): the states the steps
//! produce pass, and each broken state below — a round stored without its result, a tool
//! result outside a round, two active tasks, open tasks without their stop at rest, a turn
//! left running at rest, an orphan row — is named.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use crate::support::planning;
    use preflight_protocol::chat::Phase;
    use preflight_protocol::tasks::{ExecutorStop, StopReason, TaskStatus};
    use preflight_protocol::ChatId;
    use preflight_store::{CheckReport, Store};
    use preflight_testkit::store::fixtures::{self, settings};
    use preflight_testkit::store::{raw, temp_store};

    /// A chat whose approved plan's first turn ran one round and is still running.
    fn executing(store: &Store) -> ChatId {
        let chat = store.create_chat(&settings("soak")).unwrap().id;
        planning::approved_chat(store, &chat);
        chat
    }

    fn violations(report: &CheckReport) -> String {
        report.violations.join("\n")
    }

    #[test]
    fn the_steps_states_pass_and_a_running_turn_breaks_only_the_rules_at_rest() {
        let (_dir, store) = temp_store();
        let chat = executing(&store);
        let live = store.check(false).unwrap();
        assert!(live.is_consistent(), "{}", violations(&live));
        assert_eq!((live.chats, live.messages, live.open_task_lists), (1, 6, 1));

        let at_rest = store.check(true).unwrap();
        assert!(
            violations(&at_rest).contains("a turn left running (phase executing)"),
            "{at_rest:?}"
        );

        // What start-up recovery does with it: the turn ends, the stop says why.
        let list = store.task_list(&chat).unwrap();
        let stop = ExecutorStop::of(StopReason::Interrupted, None, &list, "2026-12-05T00:00:00Z");
        store.record_stop(&chat, &stop).unwrap();
        store.finish_turn(&chat, false).unwrap();
        let settled = store.check(true).unwrap();
        assert!(settled.is_consistent(), "{}", violations(&settled));
    }

    #[test]
    fn open_tasks_at_rest_without_their_stop_are_named() {
        let (_dir, store) = temp_store();
        let chat = executing(&store);
        store.append_messages(&chat, &[fixtures::assistant("Stopping here.")]).unwrap();
        store.finish_turn(&chat, false).unwrap();
        assert_eq!(store.state(&chat).unwrap().phase, Phase::Idle);
        let report = store.check(true).unwrap();
        assert!(violations(&report).contains("left open without a stop"), "{report:?}");
        assert!(store.check(false).unwrap().is_consistent());
    }

    #[test]
    fn a_round_without_its_result_and_a_result_outside_a_round_are_named() {
        let (_dir, store) = temp_store();
        let chat = executing(&store);
        let round = fixtures::tool_round("call_9", false);
        store.write(|tx| tx.insert_message(&chat, &round[0])).unwrap();
        store.write(|tx| tx.insert_message(&chat, &fixtures::assistant("after"))).unwrap();
        store.write(|tx| tx.insert_message(&chat, &round[1])).unwrap();
        let found = violations(&store.check(false).unwrap());
        assert!(found.contains("without the results of [\"call_9\"]"), "{found}");
        assert!(found.contains("tool result call_9 outside a round"), "{found}");
    }

    #[test]
    fn two_active_tasks_and_an_orphan_row_are_named() {
        let (_dir, store) = temp_store();
        let chat = executing(&store);
        let mut list = store.task_list(&chat).unwrap();
        for task in &mut list.tasks {
            task.status = TaskStatus::Active;
        }
        store.save_task_list(&chat, &list).unwrap();
        let connection = raw(&store);
        connection.execute_batch("PRAGMA foreign_keys = OFF").unwrap();
        connection
            .execute("INSERT INTO task_lists (chat_id, list) VALUES ('gone', '{}')", [])
            .unwrap();
        let found = violations(&store.check(false).unwrap());
        assert!(found.contains(&format!("{} active tasks", list.tasks.len())), "{found}");
        assert!(found.contains("foreign_key_check: a row of task_lists has no parent"), "{found}");
    }
}
