//! Turn steps (begin, edit and re-send, executor output, finish), wrong-state refusals that
//! change nothing, and `Store::write` as the way to compose new atomic steps.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use crate::support::planning;
    use preflight_protocol::chat::{Message, Phase};
    use preflight_protocol::ChatId;
    use preflight_store::{Conflict, Entity, Store, StoreError};
    use preflight_testkit::store::fixtures::{self, settings, tasks_from};
    use preflight_testkit::store::temp_store;

    fn new_chat(store: &Store) -> ChatId {
        store.create_chat(&settings("turns")).unwrap().id
    }

    #[test]
    fn a_turn_stores_the_message_and_enters_its_phase() {
        let (_dir, store) = temp_store();
        for phase in [Phase::Planning, Phase::Executing] {
            let chat = new_chat(&store);
            let message = fixtures::user("Write a word counter");
            store.begin_user_turn(&chat, &message, phase).unwrap();
            let snapshot = store.snapshot(&chat).unwrap();
            assert_eq!((snapshot.messages, snapshot.state.phase), (vec![message], phase));
        }
    }

    #[test]
    fn a_turn_needs_a_turn_phase_and_the_users_own_message() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let invalid = [
            (fixtures::user("hi"), Phase::Idle),
            (fixtures::user("hi"), Phase::Questions),
            (fixtures::feedback("an answer is no turn"), Phase::Executing),
            (fixtures::assistant("nor is this"), Phase::Executing),
        ];
        for (message, phase) in invalid {
            let error = store.begin_user_turn(&chat, &message, phase).unwrap_err();
            assert!(matches!(error, StoreError::InvalidInput { .. }), "{error:?}");
        }
        assert!(store.messages(&chat).unwrap().is_empty());
    }

    /// A chat in a given state, and the steps that do not fit it with the conflict each meets.
    #[test]
    fn wrong_state_steps_are_typed_errors_that_change_nothing() {
        type Attempt = fn(&Store, &ChatId) -> Result<(), StoreError>;
        type Setup = fn(&Store, &ChatId);
        type Case = (&'static str, Setup, Vec<(Attempt, Conflict)>);
        let send: Attempt = |s, c| s.begin_user_turn(c, &fixtures::user("more"), Phase::Executing);
        let answer: Attempt = |s, c| s.record_answer(c, &"q1".into(), "left").map(drop);
        let approve: Attempt =
            |s, c| s.approve_plan(c, &tasks_from(&fixtures::plan_document("p", 1))).map(drop);
        let edit: Attempt = |s, c| s.edit_plan(c, fixtures::plan_document("p", 1)).map(drop);
        let reject: Attempt =
            |s, c| s.reject_plan(c, Some(&fixtures::feedback("no")), Vec::new()).map(drop);
        let finish: Attempt = |s, c| s.finish_turn(c, true);
        let plan_card: Attempt = |s, c| {
            let document = fixtures::plan_document("p", 1);
            s.record_plan_card(c, &fixtures::plan_card(&document), document).map(drop)
        };
        let fall_back: Attempt = |s, c| s.fall_back_to_execution(c, None);
        let cancel: Attempt = |s, c| s.cancel_plan(c).map(drop);
        let asking: Setup = |s, c| drop(planning::asking(s, c, 2));
        let awaiting: Setup = |s, c| drop(planning::awaiting_approval(s, c));
        let executing: Setup = |s, c| drop(planning::approved_chat(s, c));
        let idle: Setup = |_, _| {};
        let not_planning = |phase| Conflict::NotPlanning { phase };
        let cases: Vec<Case> = vec![
            (
                "asking",
                asking,
                vec![
                    (send, Conflict::PlanPending),
                    (finish, Conflict::PlanPending),
                    (approve, Conflict::NoPendingPlan),
                    (edit, Conflict::NoPendingPlan),
                    (reject, Conflict::NoPendingPlan),
                    (plan_card, not_planning(Phase::Questions)),
                    (fall_back, not_planning(Phase::Questions)),
                ],
            ),
            (
                "awaiting approval",
                awaiting,
                vec![
                    (send, Conflict::PlanAwaitingApproval),
                    (finish, Conflict::PlanAwaitingApproval),
                    (answer, Conflict::NoQuestions),
                    (plan_card, not_planning(Phase::AwaitingApproval)),
                ],
            ),
            (
                "executing",
                executing,
                vec![
                    (approve, Conflict::NoPendingPlan),
                    (edit, Conflict::NoPendingPlan),
                    (answer, Conflict::NoQuestions),
                    (cancel, not_planning(Phase::Executing)),
                    (plan_card, not_planning(Phase::Executing)),
                ],
            ),
            (
                "idle",
                idle,
                vec![
                    (approve, Conflict::NoPendingPlan),
                    (reject, Conflict::NoPendingPlan),
                    (answer, Conflict::NoQuestions),
                    (cancel, not_planning(Phase::Idle)),
                ],
            ),
        ];
        for (state, setup, attempts) in cases {
            let (_dir, store) = temp_store();
            let chat = new_chat(&store);
            setup(&store, &chat);
            let before = store.snapshot(&chat).unwrap();
            for (index, (attempt, conflict)) in attempts.into_iter().enumerate() {
                let error = attempt(&store, &chat).unwrap_err();
                assert_eq!(
                    error.conflict(),
                    Some(&conflict),
                    "{state}, attempt {index}: {error:?}"
                );
                assert_eq!(store.snapshot(&chat).unwrap(), before, "{state}, attempt {index}");
            }
        }
    }

    #[test]
    fn steps_on_an_unknown_chat_are_not_found() {
        let (_dir, store) = temp_store();
        let not_found = |error: StoreError| {
            assert!(matches!(error, StoreError::NotFound { entity: Entity::Chat, .. }), "{error:?}")
        };
        not_found(
            store
                .begin_user_turn(&"nope".into(), &fixtures::user("hi"), Phase::Executing)
                .unwrap_err(),
        );
        not_found(store.record_answer(&"nope".into(), &"q1".into(), "left").unwrap_err());
        not_found(
            store
                .approve_plan(&"nope".into(), &tasks_from(&fixtures::plan_document("p", 1)))
                .unwrap_err(),
        );
        not_found(store.cancel_plan(&"nope".into()).unwrap_err());
        not_found(store.finish_turn(&"nope".into(), true).unwrap_err());
        not_found(store.state(&"nope".into()).unwrap_err());
        not_found(store.task_list(&"nope".into()).unwrap_err());
        not_found(store.plan_revisions(&"nope".into()).unwrap_err());
    }

    #[test]
    fn editing_the_first_message_wipes_plan_revisions_task_list_and_later_messages() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::approved_chat(&store, &chat);
        let first = store.messages(&chat).unwrap()[0].clone();
        let edited = store
            .edit_user_message(&chat, &first.id, "Count lines instead", Phase::Planning)
            .unwrap();
        assert_eq!(edited.id, first.id);
        assert_eq!(edited.content(), "Count lines instead");
        assert_eq!(edited.created_at, first.created_at);
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.messages, [edited]);
        assert!(snapshot.revisions.is_empty() && snapshot.state.plan.is_none());
        assert!(snapshot.task_list.tasks.is_empty());
        assert_eq!(snapshot.state.phase, Phase::Planning);
        assert_eq!(store.user_turn_count(&chat).unwrap(), 1, "plan mode runs again");
    }

    #[test]
    fn editing_the_first_message_while_questions_wait_drops_plan_pending() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 2);
        store.record_answer(&chat, &"q1".into(), "left").unwrap();
        let first = store.messages(&chat).unwrap()[0].id.clone();
        store.edit_user_message(&chat, &first, "Something else", Phase::Planning).unwrap();
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.messages.len(), 1);
        assert!(snapshot.state.plan_pending.is_none());
        assert_eq!(snapshot.state.phase, Phase::Planning);
    }

    /// An approved chat with a finished first turn and a second turn answered.
    fn two_turns(store: &Store, chat: &ChatId) -> Message {
        planning::approved_chat(store, chat);
        store.append_messages(chat, &[fixtures::assistant("Done.")]).unwrap();
        store.finish_turn(chat, false).unwrap();
        let second = fixtures::user("Now add --lines");
        store.begin_user_turn(chat, &second, Phase::Executing).unwrap();
        store.append_messages(chat, &[fixtures::assistant("Added.")]).unwrap();
        second
    }

    #[test]
    fn editing_a_later_message_keeps_the_plan_and_drops_what_followed() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let second = two_turns(&store, &chat);
        let before = store.snapshot(&chat).unwrap();
        let edited = store
            .edit_user_message(&chat, &second.id, "Now add --bytes", Phase::Executing)
            .unwrap();
        let after = store.snapshot(&chat).unwrap();
        let kept = before.messages.len() - 1;
        assert_eq!(after.messages[..kept - 1], before.messages[..kept - 1]);
        assert_eq!(after.messages.last(), Some(&edited));
        assert_eq!(after.messages.len(), kept);
        assert_eq!((after.revisions, after.task_list), (before.revisions, before.task_list));
        assert_eq!(after.state.phase, Phase::Executing);
    }

    #[test]
    fn only_the_users_own_messages_can_be_edited() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 1);
        let answer = store.record_answer(&chat, &"q1".into(), "left").unwrap().message;
        let card = store.messages(&chat).unwrap()[1].clone();
        let before = store.snapshot(&chat).unwrap();
        for message in [&answer, &card] {
            let error =
                store.edit_user_message(&chat, &message.id, "x", Phase::Planning).unwrap_err();
            let expected = Conflict::NotEditable { message_id: message.id.clone() };
            assert_eq!(error.conflict(), Some(&expected));
        }
        let missing =
            store.edit_user_message(&chat, &"nope".into(), "x", Phase::Planning).unwrap_err();
        assert!(matches!(missing, StoreError::NotFound { entity: Entity::Message, .. }));
        assert_eq!(store.snapshot(&chat).unwrap(), before);
    }

    #[test]
    fn finishing_a_turn_goes_idle_and_closes_the_task_list_only_when_asked() {
        let (_dir, store) = temp_store();
        for close in [false, true] {
            let chat = new_chat(&store);
            let plan = planning::approved_chat(&store, &chat);
            store.save_task_list(&chat, &fixtures::advance(&tasks_from(&plan))).unwrap();
            store.finish_turn(&chat, close).unwrap();
            let snapshot = store.snapshot(&chat).unwrap();
            assert_eq!(snapshot.state.phase, Phase::Idle);
            assert_eq!(snapshot.task_list.tasks.is_empty(), close);
        }
    }

    #[test]
    fn an_empty_task_list_is_no_task_list() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let tasks = tasks_from(&fixtures::plan_document("p", 2));
        store.save_task_list(&chat, &tasks).unwrap();
        assert_eq!(store.task_list(&chat).unwrap(), tasks);
        store.save_task_list(&chat, &Default::default()).unwrap();
        assert_eq!(store.task_list(&chat).unwrap(), Default::default());
        assert!(!store.delete_task_list(&chat).unwrap());
    }

    #[test]
    fn executor_output_is_stored_whole_or_not_at_all_and_never_as_cards() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        store.begin_user_turn(&chat, &fixtures::user("go"), Phase::Executing).unwrap();
        let mut batch = fixtures::tool_round("call_1", false);
        batch.push(fixtures::question_card(&fixtures::questions(1, 1)));
        let error = store.append_messages(&chat, &batch).unwrap_err();
        assert!(matches!(error, StoreError::InvalidInput { .. }), "{error:?}");
        let duplicate = fixtures::assistant("twice");
        let error = store.append_messages(&chat, &[duplicate.clone(), duplicate]).unwrap_err();
        assert!(matches!(error, StoreError::Sqlite(_)), "{error:?}");
        assert_eq!(store.messages(&chat).unwrap().len(), 1, "nothing of either batch stayed");
    }

    #[test]
    fn a_composed_step_that_fails_halfway_leaves_nothing_behind() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 1);
        let before = store.snapshot(&chat).unwrap();
        let error = store
            .write(|tx| {
                tx.record_answer(&chat, &"q1".into(), "left")?;
                tx.set_phase(&chat, Phase::Executing)?;
                tx.approve_plan(&chat, &tasks_from(&fixtures::plan_document("p", 1)))
            })
            .unwrap_err();
        assert_eq!(error.conflict(), Some(&Conflict::NoPendingPlan));
        assert_eq!(store.snapshot(&chat).unwrap(), before);
    }

    #[test]
    fn a_panic_inside_a_step_rolls_back_and_the_store_stays_usable() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let before = store.snapshot(&chat).unwrap();
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let _ = store.write(|tx| {
                tx.insert_message(&chat, &fixtures::assistant("half"))?;
                panic!("a bug halfway through a step");
                #[allow(unreachable_code)]
                Ok(())
            });
        }));
        assert!(panicked.is_err());
        assert_eq!(store.snapshot(&chat).unwrap(), before);
        store.begin_user_turn(&chat, &fixtures::user("still works"), Phase::Executing).unwrap();
    }
}
