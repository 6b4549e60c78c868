//! Table tests of the planner-reply parser, and a property test that it never panics.

use proptest::prelude::*;

use super::*;

fn questions_of(reply: &str) -> Vec<(String, String, Vec<String>)> {
    match parse_planner_reply(reply).kind {
        ReplyKind::Questions(questions) => {
            questions.into_iter().map(|q| (q.id.into(), q.question, q.options)).collect()
        }
        other => panic!("expected questions from {reply:?}, got {other:?}"),
    }
}

fn plan_of(reply: &str) -> Plan {
    match parse_planner_reply(reply).kind {
        ReplyKind::Plan(plan) => plan,
        other => panic!("expected a plan from {reply:?}, got {other:?}"),
    }
}

fn kind_name(reply: &str) -> &'static str {
    match parse_planner_reply(reply).kind {
        ReplyKind::Questions(_) => "questions",
        ReplyKind::Plan(_) => "plan",
        ReplyKind::None => "none",
    }
}

const ONE_QUESTION: &str =
    r#"{"questions":[{"id":"q1","question":"Which DB?","options":["PG","SQLite","MySQL"]}]}"#;
const ONE_STEP: &str = r#"{"title":"T","aim":"A","steps":[{"action":"do","expected":"done"}]}"#;

#[test]
fn every_spelling_of_a_fence_is_read() {
    let cases = [
        (format!("```plan-questions\n{ONE_QUESTION}\n```"), "questions"),
        (format!("~~~plan-questions\n{ONE_QUESTION}\n~~~"), "questions"),
        (format!("\u{FEFF}```plan-questions\r\n{ONE_QUESTION}\r\n```\r\n"), "questions"),
        (format!("Some prose first.\n\n```plan\n{ONE_STEP}\n```\n\nAnd after."), "plan"),
        (format!("```plan_json\n{ONE_STEP}\n```"), "plan"),
        (format!("```plan\n{ONE_STEP}"), "plan"),
        (format!("```json\n{ONE_STEP}\n```"), "plan"),
        (format!("```\n{ONE_QUESTION}\n```"), "questions"),
        (format!("plan-questions\n{ONE_QUESTION}"), "questions"),
        (ONE_STEP.to_string(), "plan"),
        ("```plan-questions\n{\"questions\":[{\"question\":\"X?\",\"options\":[\"a\",\"b\",\"c\",],},],}\n```".into(), "questions"),
        ("No fence here, the task is simple: done.".into(), "none"),
        ("```plan\n{\"title\":\"T\",\"steps\":[]}\n```".into(), "none"),
        ("```plan\n{not json at all\n```".into(), "none"),
        ("```python\nprint('{\"steps\":[1]}')\n```".into(), "none"),
        ("".into(), "none"),
    ];
    for (reply, expected) in cases {
        assert_eq!(kind_name(&reply), expected, "reply: {reply:?}");
    }
}

#[test]
fn reasoning_blocks_are_not_the_answer() {
    let reply = format!("<think>\nMaybe ask?\n```plan-questions\n{ONE_QUESTION}\n```\n</think>\nPlan:\n```plan\n{ONE_STEP}\n```");
    let parsed = parse_planner_reply(&reply);
    assert_eq!(parsed.text, "Plan:");
    assert!(matches!(parsed.kind, ReplyKind::Plan(_)));
    let unclosed = format!("<think>\n```plan\n{ONE_STEP}\n```");
    assert_eq!(kind_name(&unclosed), "plan");
}

#[test]
fn the_last_valid_fence_wins() {
    let reply = format!(
        "```plan-questions\n{ONE_QUESTION}\n```\nActually I know enough:\n```plan\n{ONE_STEP}\n```\n```plan\n{{broken\n```"
    );
    assert_eq!(plan_of(&reply).title, "T");
    let reply = format!("```plan\n{ONE_STEP}\n```\n```plan-questions\n{ONE_QUESTION}\n```");
    assert_eq!(questions_of(&reply).len(), 1);
}

#[test]
fn questions_are_capped_deduplicated_and_never_invented() {
    let reply = r#"```plan-questions
{"questions":[
 {"id":"q1","question":"One?","options":["a","b","a","c","d"]},
 {"id":"q1","question":"Two?","options":["x"]},
 {"question":"one?  ","options":["dup of the first"]},
 {"question":"   ","options":["no text"]},
 {"id":"q7","question":"Three?","options":[]},
 {"question":"Four?","options":["too many questions"]}
]}
```"#;
    let expected = vec![
        ("q1".to_string(), "One?".to_string(), vec!["a".to_string(), "b".into(), "c".into()]),
        ("q2".to_string(), "Two?".to_string(), vec!["x".to_string()]),
        ("q7".to_string(), "Three?".to_string(), vec![]),
    ];
    assert_eq!(questions_of(reply), expected);
}

#[test]
fn missing_and_duplicate_ids_are_fixed() {
    let reply = r#"```plan-questions
[{"question":"A?"},{"id":"q1","question":"B?"},{"id":3,"question":"C?"}]
```"#;
    let ids: Vec<String> = questions_of(reply).into_iter().map(|(id, _, _)| id).collect();
    assert_eq!(ids, ["q1", "q2", "3"]);
}

#[test]
fn plans_are_normalised() {
    let reply = r#"Plan below.
```plan
{"aim":"Ship it. Then rest.","steps":["first",{"step":"second","result":"ok"},{"action":" "}],
 "libraries":["serde",{"name":"serde"},{"name":"tokio","purpose":"async","usage":"rt"}],
 "sandbox":"reuse"}
```"#;
    let plan = plan_of(reply);
    assert_eq!(plan.title, "Ship it");
    assert_eq!(
        plan.steps,
        vec![
            PlanStep { action: "first".into(), expected: String::new() },
            PlanStep { action: "second".into(), expected: "ok".into() },
        ]
    );
    let names: Vec<&str> = plan.libraries.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["serde", "tokio"]);
    assert_eq!(plan.sandbox.policy, SandboxPolicy::Reuse);
}

#[test]
fn fences_leave_the_text_and_prose_stays() {
    let reply = format!(
        "Intro.\n\n```plan-questions\n{ONE_QUESTION}\n```\n\nOutro.\n```rust\nfn x() {{}}\n```"
    );
    let parsed = parse_planner_reply(&reply);
    assert_eq!(parsed.text, "Intro.\n\nOutro.\n```rust\nfn x() {}\n```");
}

#[test]
fn an_unreadable_fence_explains_itself_for_the_repair_attempt() {
    let parsed = parse_planner_reply("Here:\n```plan\n{\"title\": \"x\" \"steps\": []}\n```");
    assert_eq!(parsed.kind, ReplyKind::None);
    assert_eq!(parsed.text, "Here:");
    assert!(parsed.error.as_deref().unwrap().starts_with("invalid JSON"), "{:?}", parsed.error);
}

#[test]
fn the_json_output_has_the_documented_shape() {
    let json =
        parse_planner_reply(&format!("Hi\n```plan-questions\n{ONE_QUESTION}\n```")).to_json();
    assert_eq!(json["kind"], "questions");
    assert_eq!(json["text"], "Hi");
    assert_eq!(json["questions"][0]["options"].as_array().unwrap().len(), 3);
    assert!(json.get("plan").is_none() && json.get("error").is_none());
    let none = parse_planner_reply("just words").to_json();
    assert_eq!(none, serde_json::json!({"kind": "none", "text": "just words"}));
}

fn fragment() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("```".to_string()),
        Just("~~~".to_string()),
        Just("```plan-questions\n".to_string()),
        Just("```plan\n".to_string()),
        Just("{\"questions\":[".to_string()),
        Just("{\"steps\":[".to_string()),
        Just("\"options\":[\"a\",".to_string()),
        Just("\"question\":\"é?\"".to_string()),
        Just("}],".to_string()),
        Just("\r\n".to_string()),
        Just("\u{FEFF}".to_string()),
        Just("//".to_string()),
        Just("/*".to_string()),
        Just("\\".to_string()),
        Just("\"".to_string()),
        "\\PC{0,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn the_parser_never_panics_and_keeps_its_limits(parts in prop::collection::vec(fragment(), 0..40)) {
        let reply = parts.concat();
        let parsed = parse_planner_reply(&reply);
        match &parsed.kind {
            ReplyKind::Questions(questions) => {
                prop_assert!((1..=MAX_QUESTIONS).contains(&questions.len()));
                let mut ids: Vec<&str> = questions.iter().map(|q| q.id.as_str()).collect();
                ids.sort();
                ids.dedup();
                prop_assert_eq!(ids.len(), questions.len());
                for question in questions {
                    prop_assert!(question.options.len() <= MAX_OPTIONS);
                    prop_assert!(!question.question.trim().is_empty());
                }
            }
            ReplyKind::Plan(plan) => prop_assert!(!plan.steps.is_empty()),
            ReplyKind::None => {}
        }
        prop_assert!(!parsed.text.contains('\r'));
        let _ = parsed.to_json();
    }

    #[test]
    fn arbitrary_text_never_panics(reply in "\\PC{0,400}") {
        let _ = parse_planner_reply(&reply);
    }
}
