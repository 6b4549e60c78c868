//! The crash test's checker sees half-written steps: each case below is a step split in two
//! (its first part written, the rest not), built with the `Tx` primitives, and the checker
//! must reject it. The states the steps themselves produce pass (see `store_workload.rs`).

mod support;

/// A module named `store`, so that `cargo test -p preflight-store store` selects these tests.
mod store {
    use crate::support::planning;
    use preflight_protocol::chat::{MessageBody, Phase};
    use preflight_protocol::planner::Approval;
    use preflight_protocol::{ChatId, MessageId};
    use preflight_store::{Store, StoreError, Tx};
    use preflight_testkit::store::check::chat_violations;
    use preflight_testkit::store::fixtures::{self, settings, tasks_from};
    use preflight_testkit::store::temp_store;

    type Setup = fn(&Store, &ChatId);
    type Half = fn(&mut Tx<'_>, &ChatId) -> Result<(), StoreError>;

    fn first_message(store: &Store, chat: &ChatId) {
        planning::first_message(store, chat);
    }

    fn asking(store: &Store, chat: &ChatId) {
        planning::asking(store, chat, 2);
    }

    fn answered_once(store: &Store, chat: &ChatId) {
        planning::asking(store, chat, 2);
        store.record_answer(chat, &"q1".into(), "left").unwrap();
    }

    /// Every question answered: the planner runs again, `plan_pending` still set.
    fn replanning(store: &Store, chat: &ChatId) {
        planning::asking(store, chat, 1);
        store.record_answer(chat, &"q1".into(), "left").unwrap();
    }

    fn awaiting(store: &Store, chat: &ChatId) {
        planning::awaiting_approval(store, chat);
    }

    fn executing(store: &Store, chat: &ChatId) {
        planning::approved_chat(store, chat);
    }

    fn idle_after_a_turn(store: &Store, chat: &ChatId) {
        planning::approved_chat(store, chat);
        store.append_messages(chat, &[fixtures::assistant("Done.")]).unwrap();
        store.finish_turn(chat, false).unwrap();
    }

    fn first_id(tx: &Tx<'_>, chat: &ChatId) -> MessageId {
        tx.first_user_message(chat).unwrap().unwrap().id
    }

    fn last_card(tx: &Tx<'_>, chat: &ChatId) -> preflight_protocol::chat::Message {
        tx.messages(chat)
            .unwrap()
            .into_iter()
            .rev()
            .find(|m| {
                matches!(
                    &m.body,
                    MessageBody::Assistant { questions: Some(_), .. }
                        | MessageBody::Assistant { plan: Some(_), .. }
                )
            })
            .unwrap()
    }

    fn half_steps() -> Vec<(&'static str, Setup, Half)> {
        vec![
            ("question card: card only", first_message, |tx, c| {
                tx.insert_message(c, &fixtures::question_card(&fixtures::questions(1, 2)))
            }),
            ("question card: plan_pending and phase only", first_message, |tx, c| {
                tx.set_plan_pending(
                    c,
                    Some(&fixtures::pending("t", fixtures::questions(1, 2), vec![], 1)),
                )?;
                tx.set_phase(c, Phase::Questions)
            }),
            ("question card: phase not yet questions", first_message, |tx, c| {
                tx.record_question_card(
                    c,
                    &fixtures::question_card(&fixtures::questions(1, 2)),
                    &fixtures::pending("t", fixtures::questions(1, 2), vec![], 1),
                )?;
                tx.set_phase(c, Phase::Planning)
            }),
            ("answer: card only", asking, |tx, c| {
                let mut card = last_card(tx, c);
                if let MessageBody::Assistant { questions: Some(questions), .. } = &mut card.body {
                    questions[0].answer = Some("left".into());
                }
                tx.update_message(c, &card)
            }),
            ("answer: synthetic message only", asking, |tx, c| {
                tx.insert_message(
                    c,
                    &fixtures::feedback(&fixtures::answer(
                        "Round 1, question 1: which way?",
                        "left",
                    )),
                )
            }),
            ("answer: without the synthetic message", asking, |tx, c| {
                let recorded = tx.record_answer(c, &"q1".into(), "left")?;
                tx.delete_message(c, &recorded.message.id)
            }),
            ("answer: plan_pending only", asking, |tx, c| {
                let mut pending = tx.plan_pending(c)?.unwrap();
                pending.questions[0].answer = Some("left".into());
                tx.set_plan_pending(c, Some(&pending))
            }),
            ("re-answer: old message deleted, new one not stored", answered_once, |tx, c| {
                let recorded = tx.record_answer(c, &"q1".into(), "right")?;
                tx.delete_message(c, &recorded.message.id)
            }),
            ("last answer: phase still questions", asking, |tx, c| {
                tx.record_answer(c, &"q1".into(), "left")?;
                tx.record_answer(c, &"q2".into(), "left")?;
                tx.set_phase(c, Phase::Questions)
            }),
            ("plan card: card only", replanning, |tx, c| {
                let mut document = fixtures::plan_document("p", 2);
                document.revision = 1;
                let mut card = fixtures::plan_card(&document);
                if let MessageBody::Assistant { plan, .. } = &mut card.body {
                    *plan = Some(Box::new(document));
                }
                tx.insert_message(c, &card)
            }),
            ("plan card: revision only", replanning, |tx, c| {
                tx.put_plan_revision(c, fixtures::plan_document("p", 2)).map(drop)
            }),
            ("plan card: plan_pending not cleared", replanning, |tx, c| {
                let pending = tx.plan_pending(c)?;
                let document = fixtures::plan_document("p", 2);
                tx.record_plan_card(c, &fixtures::plan_card(&document), document)?;
                tx.set_plan_pending(c, pending.as_ref())
            }),
            ("plan card: phase still planning", replanning, |tx, c| {
                let document = fixtures::plan_document("p", 2);
                tx.record_plan_card(c, &fixtures::plan_card(&document), document)?;
                tx.set_phase(c, Phase::Planning)
            }),
            ("pre-approved plan: task list not saved", first_message, |tx, c| {
                let document = fixtures::plan_document("p", 2);
                let tasks = tasks_from(&document);
                tx.record_pre_approved_plan(c, &fixtures::plan_card(&document), document, &tasks)?;
                tx.delete_task_list(c).map(drop)
            }),
            ("edit plan: revision only", awaiting, |tx, c| {
                tx.put_plan_revision(c, fixtures::plan_document("edited", 1)).map(drop)
            }),
            ("edit plan: card only", awaiting, |tx, c| {
                let mut card = last_card(tx, c);
                let mut document = fixtures::plan_document("edited", 1);
                document.revision = 2;
                if let MessageBody::Assistant { plan, .. } = &mut card.body {
                    *plan = Some(Box::new(document));
                }
                tx.update_message(c, &card)
            }),
            ("approve: phase not yet executing", awaiting, |tx, c| {
                let plan = tx.latest_plan(c)?.unwrap();
                tx.approve_plan(c, &tasks_from(&plan))?;
                tx.set_phase(c, Phase::AwaitingApproval)
            }),
            ("approve: the card not updated", awaiting, |tx, c| {
                let plan = tx.set_plan_approval(c, Approval::Approved)?;
                tx.save_task_list(c, &tasks_from(&plan))?;
                tx.set_phase(c, Phase::Executing)
            }),
            ("approve: task list not saved", awaiting, |tx, c| {
                let plan = tx.latest_plan(c)?.unwrap();
                tx.approve_plan(c, &tasks_from(&plan))?;
                tx.delete_task_list(c).map(drop)
            }),
            ("approve: task list and phase only", awaiting, |tx, c| {
                let plan = tx.latest_plan(c)?.unwrap();
                tx.save_task_list(c, &tasks_from(&plan))?;
                tx.set_phase(c, Phase::Executing)
            }),
            ("reject: phase not yet planning", awaiting, |tx, c| {
                tx.reject_plan(c, Some(&fixtures::feedback("shorter")), Vec::new())?;
                tx.set_phase(c, Phase::AwaitingApproval)
            }),
            ("reject: feedback only", awaiting, |tx, c| {
                tx.insert_message(c, &fixtures::feedback("shorter"))
            }),
            ("cancel while asking: messages only", answered_once, |tx, c| {
                let first = first_id(tx, c);
                tx.delete_messages_after(c, &first).map(drop)
            }),
            ("cancel while asking: state only", answered_once, |tx, c| {
                tx.set_plan_pending(c, None)?;
                tx.delete_plan(c)?;
                tx.set_phase(c, Phase::Idle)
            }),
            ("cancel while awaiting: messages only", awaiting, |tx, c| {
                let first = first_id(tx, c);
                tx.delete_messages_after(c, &first).map(drop)
            }),
            ("cancel while awaiting: state only", awaiting, |tx, c| {
                tx.set_plan_pending(c, None)?;
                tx.delete_plan(c)?;
                tx.set_phase(c, Phase::Idle)
            }),
            ("edit first message: messages only", executing, |tx, c| {
                let first = first_id(tx, c);
                tx.delete_messages_after(c, &first)?;
                tx.set_phase(c, Phase::Planning)
            }),
            ("edit first message: plan only", executing, |tx, c| {
                tx.delete_plan(c)?;
                tx.delete_task_list(c).map(drop)
            }),
            ("second turn: message only", idle_after_a_turn, |tx, c| {
                tx.insert_message(c, &fixtures::user("more"))
            }),
            ("second turn: phase only", idle_after_a_turn, |tx, c| {
                tx.set_phase(c, Phase::Planning)
            }),
            ("fall back: phase only", replanning, |tx, c| tx.set_phase(c, Phase::Executing)),
        ]
    }

    #[test]
    fn every_half_written_step_is_caught_by_the_checker() {
        for (name, setup, half) in half_steps() {
            let (_dir, store) = temp_store();
            let chat = store.create_chat(&settings(name)).unwrap().id;
            setup(&store, &chat);
            let whole = chat_violations(&store.snapshot(&chat).unwrap());
            assert!(whole.is_empty(), "{name}: the state before the step is flagged: {whole:#?}");
            store.write(|tx| half(tx, &chat)).unwrap_or_else(|error| panic!("{name}: {error}"));
            let violations = chat_violations(&store.snapshot(&chat).unwrap());
            assert!(!violations.is_empty(), "{name}: the half-written step passes the checker");
        }
    }
}
