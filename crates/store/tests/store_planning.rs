//! The planning steps: question cards and answers, plan cards and revisions, approval,
//! rejection, cancellation and the fallback to execution.

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use crate::support::planning;
    use preflight_protocol::chat::{MessageBody, Phase};
    use preflight_protocol::planner::{Approval, CommentAnchor, PlanComment, PlanDocument};
    use preflight_protocol::ChatId;
    use preflight_store::{answer_text, ChatSnapshot, Conflict, Store, StoreError};
    use preflight_testkit::store::fixtures::{self, settings, tasks_from};
    use preflight_testkit::store::temp_store;

    fn card_plan(snapshot: &ChatSnapshot, index: usize) -> PlanDocument {
        match &snapshot.messages[index].body {
            MessageBody::Assistant { plan: Some(plan), .. } => (**plan).clone(),
            other => panic!("message {index} is no plan card: {other:?}"),
        }
    }

    fn card_answers(snapshot: &ChatSnapshot, index: usize) -> Vec<Option<String>> {
        match &snapshot.messages[index].body {
            MessageBody::Assistant { questions: Some(questions), .. } => {
                questions.iter().map(|q| q.answer.clone()).collect()
            }
            other => panic!("message {index} is no question card: {other:?}"),
        }
    }

    fn new_chat(store: &Store) -> ChatId {
        store.create_chat(&settings("planning")).unwrap().id
    }

    #[test]
    fn a_question_card_is_stored_with_plan_pending_and_phase_questions() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let card = planning::asking(&store, &chat, 2);
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Questions);
        assert_eq!(snapshot.messages.last(), Some(&card));
        let pending = snapshot.state.plan_pending.unwrap();
        assert_eq!((pending.round, pending.questions.len()), (1, 2));
        assert_eq!(pending.user_text, "Write a word counter");
    }

    #[test]
    fn answers_fill_the_card_and_plan_pending_and_append_synthetic_messages() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 2);
        let first = store.record_answer(&chat, &"q2".into(), "right").unwrap();
        assert!(!first.complete && first.replaced.is_none());
        let question = "Round 1, question 2: which way?";
        assert_eq!(first.message.content(), answer_text(question, "right"));
        assert_eq!(first.message.content(), format!("{question}\nUser's answer: right"));
        assert!(matches!(first.message.body, MessageBody::User { plan_answer: true, .. }));
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Questions);
        assert_eq!(card_answers(&snapshot, 1), [None, Some("right".to_owned())]);
        assert_eq!(snapshot.messages.last(), Some(&first.message));
        assert_eq!(snapshot.state.plan_pending.unwrap().answers, [answer_text(question, "right")]);

        let second = store.record_answer(&chat, &"q1".into(), "my own way").unwrap();
        assert!(second.complete);
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(
            snapshot.state.phase,
            Phase::Planning,
            "a complete card sends the planner again"
        );
        assert_eq!(
            card_answers(&snapshot, 1),
            [Some("my own way".to_owned()), Some("right".to_owned())]
        );
        assert_eq!(snapshot.messages.len(), 4);
        assert_eq!(store.user_turn_count(&chat).unwrap(), 1);
    }

    #[test]
    fn answering_again_before_the_card_completes_replaces_the_answer_and_its_message() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 2);
        let old = store.record_answer(&chat, &"q1".into(), "left").unwrap();
        let again = store.record_answer(&chat, &"q1".into(), "straight").unwrap();
        assert_eq!(again.replaced.as_ref(), Some(&old.message.id));
        assert!(!again.complete);
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.messages.len(), 3, "card, task and one answer");
        assert_eq!(snapshot.messages[2], again.message);
        assert_eq!(card_answers(&snapshot, 1), [Some("straight".to_owned()), None]);
        let question = "Round 1, question 1: which way?";
        assert_eq!(
            snapshot.state.plan_pending.unwrap().answers,
            [answer_text(question, "straight")]
        );
    }

    #[test]
    fn unknown_questions_and_empty_answers_are_refused_without_a_trace() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 1);
        let before = store.snapshot(&chat).unwrap();
        let unknown = store.record_answer(&chat, &"q9".into(), "left").unwrap_err();
        let expected = Conflict::UnknownQuestion { question_id: "q9".into() };
        assert_eq!(unknown.conflict(), Some(&expected));
        let empty = store.record_answer(&chat, &"q1".into(), "  ").unwrap_err();
        assert!(matches!(empty, StoreError::InvalidInput { .. }), "{empty:?}");
        assert_eq!(store.snapshot(&chat).unwrap(), before);
    }

    #[test]
    fn a_later_round_replaces_plan_pending_and_keeps_the_answers_so_far() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 1);
        let answered = store.record_answer(&chat, &"q1".into(), "left").unwrap();
        let questions = fixtures::questions(2, 2);
        let pending = fixtures::pending(
            "Write a word counter",
            questions.clone(),
            answered.pending.answers,
            2,
        );
        store.record_question_card(&chat, &fixtures::question_card(&questions), &pending).unwrap();
        let state = store.state(&chat).unwrap();
        assert_eq!(state.phase, Phase::Questions);
        assert_eq!(state.plan_pending, Some(pending));
    }

    #[test]
    fn a_plan_card_stores_revision_one_clears_plan_pending_and_awaits_approval() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let plan = planning::awaiting_approval(&store, &chat);
        assert_eq!((plan.revision, plan.approval), (1, Approval::Pending));
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::AwaitingApproval);
        assert!(snapshot.state.plan_pending.is_none());
        assert_eq!(snapshot.revisions, std::slice::from_ref(&plan));
        assert_eq!(card_plan(&snapshot, 3), plan, "the card shows the stored revision");
    }

    #[test]
    fn editing_the_plan_adds_a_revision_and_points_the_card_at_it() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let first = planning::awaiting_approval(&store, &chat);
        let mut edited = first.clone();
        edited.title = "Word counter, edited".to_owned();
        edited.approval = Approval::Approved; // the store keeps an edit pending
        let second = store.edit_plan(&chat, edited).unwrap();
        assert_eq!((second.revision, second.approval), (2, Approval::Pending));
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.revisions, [first, second.clone()]);
        assert_eq!(snapshot.state.plan.as_ref(), Some(&second));
        assert_eq!(card_plan(&snapshot, 3), second);
        assert_eq!(snapshot.messages.len(), 4, "an edit adds no message");
    }

    #[test]
    fn approving_marks_revision_and_card_starts_the_task_list_and_executes() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        let plan = planning::awaiting_approval(&store, &chat);
        let tasks = tasks_from(&plan);
        let approved = store.approve_plan(&chat, &tasks).unwrap();
        assert_eq!((approved.revision, approved.approval), (1, Approval::Approved));
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Executing);
        assert_eq!(snapshot.task_list, tasks);
        assert_eq!(snapshot.revisions, std::slice::from_ref(&approved));
        assert_eq!(card_plan(&snapshot, 3), approved);
    }

    #[test]
    fn rejecting_with_feedback_marks_the_plan_and_the_next_card_is_revision_two() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::awaiting_approval(&store, &chat);
        let feedback = fixtures::feedback("Use the standard library only");
        let rejected = store.reject_plan(&chat, Some(&feedback), Vec::new()).unwrap();
        assert_eq!(rejected.approval, Approval::Rejected);
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Planning);
        assert_eq!(card_plan(&snapshot, 3), rejected);
        assert_eq!(snapshot.messages.last(), Some(&feedback));

        let document = fixtures::plan_document("Word counter, std only", 2);
        let card =
            store.record_plan_card(&chat, &fixtures::plan_card(&document), document).unwrap();
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.revisions.len(), 2);
        assert_eq!(card_plan(&snapshot, 5).revision, 2);
        assert_eq!(snapshot.messages.last(), Some(&card));
        assert_eq!(
            card_plan(&snapshot, 3).approval,
            Approval::Rejected,
            "the old card stays rejected"
        );
    }

    #[test]
    fn comments_are_kept_with_the_revision_they_were_made_on_and_not_carried_on() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::awaiting_approval(&store, &chat);
        let comment = PlanComment {
            anchor: CommentAnchor::Step(2),
            text: "Stream it".into(),
            quote: "Step two".into(),
        };
        let feedback = fixtures::feedback("see my comments");
        let rejected = store.reject_plan(&chat, Some(&feedback), vec![comment.clone()]).unwrap();
        assert_eq!(rejected.comments, std::slice::from_ref(&comment));
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.revisions[0].comments, std::slice::from_ref(&comment));
        assert_eq!(card_plan(&snapshot, 3).comments, [comment], "the card shows them too");

        let document = fixtures::plan_document("Word counter, streamed", 2);
        store.record_plan_card(&chat, &fixtures::plan_card(&document), document).unwrap();
        let revisions = store.plan_revisions(&chat).unwrap();
        assert_eq!(revisions.len(), 2);
        assert!(revisions[1].comments.is_empty());
    }

    #[test]
    fn a_pre_approved_plan_goes_straight_to_execution_with_its_task_list() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::first_message(&store, &chat);
        let document = fixtures::plan_document("Word counter", 2);
        let tasks = tasks_from(&document);
        store
            .record_pre_approved_plan(&chat, &fixtures::plan_card(&document), document, &tasks)
            .unwrap();
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Executing);
        assert_eq!(snapshot.state.plan.as_ref().unwrap().approval, Approval::PreApproved);
        assert_eq!(card_plan(&snapshot, 1).approval, Approval::PreApproved);
        assert_eq!(snapshot.task_list, tasks);
    }

    /// Each way into planning, then cancel: the chat is exactly as right after its first message.
    #[test]
    fn cancel_restores_exactly_the_state_right_after_the_first_message() {
        type Tail = fn(&Store, &ChatId);
        let planning_tails: [(&str, Tail); 5] = [
            ("planning", |_, _| {}),
            ("asking", |store, chat| {
                let questions = fixtures::questions(1, 3);
                let pending =
                    fixtures::pending("Write a word counter", questions.clone(), vec![], 1);
                store
                    .record_question_card(chat, &fixtures::question_card(&questions), &pending)
                    .unwrap();
                store.record_answer(chat, &"q2".into(), "left").unwrap();
            }),
            ("replanning after answers", |store, chat| {
                let questions = fixtures::questions(1, 1);
                let pending =
                    fixtures::pending("Write a word counter", questions.clone(), vec![], 1);
                store
                    .record_question_card(chat, &fixtures::question_card(&questions), &pending)
                    .unwrap();
                store.record_answer(chat, &"q1".into(), "left").unwrap();
            }),
            ("awaiting an edited plan", |store, chat| {
                let document = fixtures::plan_document("Word counter", 2);
                store
                    .record_plan_card(chat, &fixtures::plan_card(&document), document.clone())
                    .unwrap();
                store.edit_plan(chat, document).unwrap();
            }),
            ("revising after a rejection", |store, chat| {
                let document = fixtures::plan_document("Word counter", 2);
                store.record_plan_card(chat, &fixtures::plan_card(&document), document).unwrap();
                store.reject_plan(chat, Some(&fixtures::feedback("shorter")), Vec::new()).unwrap();
            }),
        ];
        for (name, tail) in planning_tails {
            let (_dir, store) = temp_store();
            let chat = new_chat(&store);
            let first = planning::first_message(&store, &chat);
            let mut expected = store.snapshot(&chat).unwrap();
            expected.state.phase = Phase::Idle;
            tail(&store, &chat);
            store.cancel_plan(&chat).unwrap();
            let after = store.snapshot(&chat).unwrap();
            assert_eq!(after, expected, "cancel while {name}");
            assert_eq!(after.messages, [first]);
        }
    }

    #[test]
    fn cancel_is_refused_outside_planning() {
        let (_dir, store) = temp_store();
        let idle = new_chat(&store);
        let executing = new_chat(&store);
        planning::approved_chat(&store, &executing);
        for (chat, phase) in [(&idle, Phase::Idle), (&executing, Phase::Executing)] {
            let before = store.snapshot(chat).unwrap();
            let error = store.cancel_plan(chat).unwrap_err();
            assert_eq!(error.conflict(), Some(&Conflict::NotPlanning { phase }));
            assert_eq!(store.snapshot(chat).unwrap(), before);
        }
    }

    #[test]
    fn falling_back_drops_plan_pending_keeps_the_cards_and_executes() {
        let (_dir, store) = temp_store();
        let chat = new_chat(&store);
        planning::asking(&store, &chat, 1);
        store.record_answer(&chat, &"q1".into(), "left").unwrap();
        let notice = fixtures::assistant("The planner asked again; going ahead without a plan.");
        store.fall_back_to_execution(&chat, Some(&notice)).unwrap();
        let snapshot = store.snapshot(&chat).unwrap();
        assert_eq!(snapshot.state.phase, Phase::Executing);
        assert!(snapshot.state.plan_pending.is_none());
        assert_eq!(snapshot.messages.len(), 4);
        assert_eq!(snapshot.messages.last(), Some(&notice));
    }
}
