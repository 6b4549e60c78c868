//! Fuzzes `parse_planner_reply` with any text (bytes read as lossy UTF-8): it never panics,
//! and what it returns keeps DESIGN §3's normalisation promises — 1 to 3 questions of at most
//! 3 options, no repeated question or option, unique non-empty ids; a plan has at least one
//! step, each with an action, none repeated; a card never comes with a parse error.

#![no_main]

use std::collections::HashSet;

use libfuzzer_sys::fuzz_target;
use preflight_protocol::planner::{
    parse_planner_reply, Plan, Question, ReplyKind, MAX_OPTIONS, MAX_QUESTIONS,
};

fuzz_target!(|data: &[u8]| {
    let reply = parse_planner_reply(&String::from_utf8_lossy(data));
    match &reply.kind {
        ReplyKind::Questions(questions) => check_questions(questions),
        ReplyKind::Plan(plan) => check_plan(plan),
        ReplyKind::None => {}
    }
    if reply.kind != ReplyKind::None {
        assert_eq!(reply.error, None, "a card was read, yet an error is reported");
    }
    // What `preflight parse-planner-output` prints must serialise too.
    let _ = reply.to_json();
});

fn check_questions(questions: &[Question]) {
    assert!(!questions.is_empty(), "a questions card without a question");
    assert!(questions.len() <= MAX_QUESTIONS, "{} questions", questions.len());
    let mut ids = HashSet::new();
    let mut texts = HashSet::new();
    for question in questions {
        assert!(!question.id.as_str().is_empty(), "an empty id: {question:?}");
        assert!(ids.insert(question.id.as_str()), "id {:?} repeated", question.id);
        assert!(is_trimmed_text(&question.question), "question text {:?}", question.question);
        assert!(texts.insert(folded(&question.question)), "question repeated: {question:?}");
        assert!(question.options.len() <= MAX_OPTIONS, "{} options", question.options.len());
        assert_eq!(question.answer, None, "an answer the user never gave");
        let mut options = HashSet::new();
        for option in &question.options {
            assert!(is_trimmed_text(option), "option {option:?}");
            assert!(options.insert(folded(option)), "option repeated in {question:?}");
        }
    }
}

fn check_plan(plan: &Plan) {
    assert!(!plan.steps.is_empty(), "a plan without a step");
    assert!(is_trimmed_text(&plan.title), "plan title {:?}", plan.title);
    let mut actions = HashSet::new();
    for step in &plan.steps {
        assert!(is_trimmed_text(&step.action), "step action {:?}", step.action);
        assert!(actions.insert(folded(&step.action)), "step repeated: {step:?}");
    }
    let mut libraries = HashSet::new();
    for library in &plan.libraries {
        assert!(is_trimmed_text(&library.name), "library name {:?}", library.name);
        assert!(libraries.insert(folded(&library.name)), "library repeated: {library:?}");
    }
}

/// Non-empty and without surrounding whitespace, as the normaliser stores every text.
fn is_trimmed_text(text: &str) -> bool {
    !text.is_empty() && text.trim() == text
}

/// The comparison key the normaliser uses to drop repeats.
fn folded(text: &str) -> String {
    text.trim().to_lowercase()
}
