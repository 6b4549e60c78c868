//! Drives a chat through the planning steps to a named point, for tests that need one.

use preflight_protocol::chat::{Message, Phase};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::ChatId;
use preflight_store::Store;
use preflight_testkit::store::fixtures::{self, tasks_from};

/// The chat's first message: the task. Phase `planning`.
pub fn first_message(store: &Store, chat_id: &ChatId) -> Message {
    let message = fixtures::user("Write a word counter");
    store.begin_user_turn(chat_id, &message, Phase::Planning).unwrap();
    message
}

/// A question card with `count` questions waits for answers (round 1).
pub fn asking(store: &Store, chat_id: &ChatId, count: usize) -> Message {
    first_message(store, chat_id);
    let questions = fixtures::questions(1, count);
    let card = fixtures::question_card(&questions);
    let pending = fixtures::pending("Write a word counter", questions, vec![], 1);
    store.record_question_card(chat_id, &card, &pending).unwrap();
    card
}

/// One question asked and answered, then a plan card waits for approval.
pub fn awaiting_approval(store: &Store, chat_id: &ChatId) -> PlanDocument {
    asking(store, chat_id, 1);
    store.record_answer(chat_id, &"q1".into(), "left").unwrap();
    let document = fixtures::plan_document("Word counter", 3);
    let card = fixtures::plan_card(&document);
    store.record_plan_card(chat_id, &card, document).unwrap();
    store.state(chat_id).unwrap().plan.unwrap()
}

/// The plan approved and one executor round stored. Phase `executing`.
pub fn approved_chat(store: &Store, chat_id: &ChatId) -> PlanDocument {
    let document = awaiting_approval(store, chat_id);
    let approved = store.approve_plan(chat_id, &tasks_from(&document)).unwrap();
    store.append_messages(chat_id, &fixtures::tool_round("call_1", false)).unwrap();
    approved
}
