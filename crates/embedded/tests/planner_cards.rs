//! The acceptance test on the real default model (SmolLM2-135M-Instruct): ten varied
//! first messages each end in a card that parses — questions or a plan, never "neither" —
//! with no item repeated, and the card says that a tiny model planned it.

mod support;

use std::collections::HashSet;

use preflight_engine::chat::{MessageBody, Phase};
use preflight_engine::lifecycle::ChatView;

const FIRST_MESSAGES: [&str; 10] = [
    "Write a Python script that renames all .jpg files in a folder by their date taken.",
    "Set up a REST API in Rust with a health check endpoint.",
    "hi",
    "My laptop is slow. What should I do?",
    "Translate my React app to Vue.",
    "Écris un script bash qui sauvegarde mon dossier personnel chaque nuit.",
    "Build a CLI todo app that stores tasks in SQLite.",
    "Find the bug: my function returns None instead of the sum of the list.",
    "Plan a migration of our PostgreSQL 12 database to PostgreSQL 16 with no downtime.",
    "Make a website for my bakery with a menu page and opening hours.",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_first_messages_each_give_a_card_without_repeated_items() {
    let (engine, _home) = support::engine("").await;
    let mut kinds = Vec::new();
    for text in FIRST_MESSAGES {
        let (phase, view) = support::first_message(&engine, text).await;
        let card = card_text(&view);
        match phase {
            Phase::Questions => check_questions(&view, text),
            Phase::AwaitingApproval => check_plan(&view, text),
            other => panic!(
                "{text:?}: the planner ended in {other:?} (\"neither\"); chat: {:#?}",
                view.messages
            ),
        }
        assert!(
            card.contains("embedded tiny model") && card.contains("far better plans"),
            "{text:?}: {card}"
        );
        kinds.push(phase);
    }
    engine.shutdown().await;
    eprintln!("cards: {kinds:?}");
}

fn card_text(view: &ChatView) -> String {
    view.messages
        .iter()
        .rev()
        .find_map(|message| match &message.body {
            MessageBody::Assistant { content, .. } => Some(content.clone()),
            _ => None,
        })
        .expect("a card message")
}

fn check_questions(view: &ChatView, text: &str) {
    let pending = view.state.plan_pending.as_ref().expect("questions are pending");
    let questions = &pending.questions;
    assert!((1..=3).contains(&questions.len()), "{text:?}: {questions:?}");
    assert_unique(questions.iter().map(|q| q.question.as_str()), text);
    assert_unique(questions.iter().map(|q| q.id.as_str()), text);
    for question in questions {
        assert!(
            !question.question.trim().is_empty() && !question.options.is_empty(),
            "{text:?}: {question:?}"
        );
        assert!(question.options.len() <= 3, "{text:?}: {question:?}");
        assert_unique(question.options.iter().map(String::as_str), text);
    }
}

fn check_plan(view: &ChatView, text: &str) {
    let plan = view.state.plan.as_ref().expect("a plan awaits approval");
    assert!(!plan.steps.is_empty(), "{text:?}: {plan:?}");
    assert_unique(plan.steps.iter().map(|step| step.action.as_str()), text);
    assert_unique(plan.libraries.iter().map(|library| library.name.as_str()), text);
}

/// No two items the same, ignoring case and surrounding blanks (the normaliser's rule).
fn assert_unique<'a>(items: impl Iterator<Item = &'a str>, text: &str) {
    let mut seen = HashSet::new();
    for item in items {
        assert!(seen.insert(item.trim().to_lowercase()), "{text:?}: {item:?} is repeated");
    }
}
