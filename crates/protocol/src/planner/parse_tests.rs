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
            PlanStep { action: "first".into(), ..PlanStep::default() },
            PlanStep { action: "second".into(), expected: "ok".into(), ..PlanStep::default() },
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

/// A plan fence around `fields` (JSON members after `steps`) with three steps; `step3` is
/// the third step's own JSON members.
fn plan_with(fields: &str, step3: &str) -> Plan {
    let reply = format!(
        "```plan\n{{\"title\":\"T\",\"steps\":[\"one\",\"two\",{{\"action\":\"three\"{step3}}}]{fields}}}\n```"
    );
    plan_of(&reply)
}

#[test]
fn every_optional_field_of_a_plan_is_read() {
    let plan = plan_of(
        r#"```plan
{"title":"CSV export","aim":"Download data","approach":"A streaming route",
 "alternatives":["Build the file in memory"],"risks":["Slow for big tables"],
 "files":{"create":["tests/export.rs"],"modify":["./src/routes.rs"]},
 "tests":["export answers 200"],"complexity":"Medium",
 "steps":[{"action":"Add the route","expected":"200","files":["src/routes.rs"],"check":"cargo test export"},
          {"action":"Test it","depends_on":[1],"check":"`cargo test`"}]}
```"#,
    );
    let judgement = &plan.judgement;
    assert_eq!(judgement.approach.as_deref(), Some("A streaming route"));
    assert_eq!(judgement.alternatives, ["Build the file in memory"]);
    assert_eq!(judgement.risks, ["Slow for big tables"]);
    assert_eq!(judgement.planned_files.create, ["tests/export.rs"]);
    assert_eq!(judgement.planned_files.modify, ["src/routes.rs"]);
    assert_eq!(judgement.tests, ["export answers 200"]);
    assert_eq!(judgement.complexity, Some(Complexity::Medium));
    assert_eq!(plan.steps[0].files, ["src/routes.rs"]);
    assert_eq!(plan.steps[0].check.as_deref(), Some("cargo test export"));
    assert_eq!(plan.steps[1].depends_on, [1]);
    assert_eq!(plan.steps[1].check.as_deref(), Some("cargo test"), "backticks unquoted");
    assert!(plan.notes.is_empty(), "{:?}", plan.notes);
}

#[test]
fn seed_001_names_are_read_as_aliases() {
    let plan = plan_of(
        r#"```plan
{"summary":"Greet users","approach":"print","alternatives_considered":["a GUI"],
 "risks":"none known","files_to_create":["hello.py"],"files_to_modify":["README.md"],
 "tests_to_write":[{"name":"prints hello"}],"estimated_complexity":"low",
 "steps":[{"description":"Write hello.py","verification":"python hello.py"},
          {"description":"Document it","dependencies":["step 1"],"files":"README.md"}]}
```"#,
    );
    assert_eq!((plan.title.as_str(), plan.aim.as_str()), ("Greet users", "Greet users"));
    let judgement = &plan.judgement;
    assert_eq!(judgement.alternatives, ["a GUI"]);
    assert_eq!(judgement.risks, ["none known"]);
    assert_eq!(judgement.planned_files.create, ["hello.py"]);
    assert_eq!(judgement.planned_files.modify, ["README.md"]);
    assert_eq!(judgement.tests, ["prints hello"]);
    assert_eq!(judgement.complexity, Some(Complexity::Low));
    assert_eq!(plan.steps[0].check.as_deref(), Some("python hello.py"));
    assert_eq!(plan.steps[1].depends_on, [1]);
    assert_eq!(plan.steps[1].files, ["README.md"]);
}

#[test]
fn mistyped_optional_fields_are_dropped_and_the_plan_stands() {
    let plan = plan_with(
        r#","approach":{"x":1},"risks":42,"alternatives":{"a":"b"},"files":["a.rs"],
           "tests":[null,true,"kept"],"complexity":"enormous""#,
        r#","check":["make"],"depends_on":"soon","files":{"path":"x"}"#,
    );
    assert_eq!(plan.judgement.approach, None);
    assert!(plan.judgement.risks.is_empty() && plan.judgement.alternatives.is_empty());
    assert!(plan.judgement.planned_files.is_empty(), "files must be {{create, modify}}");
    assert_eq!(plan.judgement.tests, ["kept"]);
    assert_eq!(plan.judgement.complexity, None);
    assert_eq!(plan.steps[2], PlanStep { action: "three".into(), ..PlanStep::default() });
    assert!(plan.notes.is_empty(), "a mistyped field is not a rule broken: {:?}", plan.notes);
}

#[test]
fn dependencies_name_earlier_steps_or_leave_a_note() {
    let cases: [(&str, &[u32], &[&str]); 7] = [
        ("[1, 2]", &[1, 2], &[]),
        ("[2, 1, 2, \"1\"]", &[1, 2], &[]),
        ("[3]", &[], &["step 3: depends_on 3 dropped: no earlier step 3"]),
        ("[5]", &[], &["step 3: depends_on 5 dropped: no earlier step 5"]),
        ("[0, 1, 9]", &[1], &["step 3: depends_on 0, 9 dropped: no earlier steps 0, 9"]),
        ("2", &[2], &[]),
        ("[\"#1\", \"Step 2\"]", &[1, 2], &[]),
    ];
    for (written, kept, notes) in cases {
        let plan = plan_with("", &format!(",\"depends_on\":{written}"));
        assert_eq!(plan.steps[2].depends_on, kept, "{written}");
        assert_eq!(plan.notes, notes, "{written}");
    }
}

/// Steps dropped as repeats or as unreadable renumber the steps after them; a dependency
/// follows the step it named.
#[test]
fn dependencies_follow_steps_through_dropped_repeats() {
    let plan = plan_of(
        r#"```plan
{"steps":["one",{"action":" "},"ONE","two",{"action":"three","depends_on":[3,4,2]}]}
```"#,
    );
    let actions: Vec<&str> = plan.steps.iter().map(|step| step.action.as_str()).collect();
    assert_eq!(actions, ["one", "two", "three"]);
    assert_eq!(plan.steps[2].depends_on, [1, 2], "3 repeats step 1, 4 is now step 2");
    assert_eq!(plan.notes, ["step 3: depends_on 2 dropped: no earlier step 2"]);
}

#[test]
fn paths_are_made_plain_and_escapes_are_dropped_with_a_note() {
    let plan = plan_with(
        r#","files":{"create":["./a/./b.rs","a\\b.rs","../up.rs","~/.bashrc","/abs/x.rs"]}"#,
        r#","files":["src/../../etc/passwd","src/lib.rs","src/lib.rs"]"#,
    );
    assert_eq!(plan.judgement.planned_files.create, ["a/b.rs", "/abs/x.rs"]);
    assert_eq!(plan.steps[2].files, ["src/lib.rs"]);
    assert_eq!(
        plan.notes,
        [
            "files.create: \"../up.rs\" dropped: `..` climbs out of the workspace",
            "files.create: \"~/.bashrc\" dropped: outside the workspace",
            "step 3: files: \"src/../../etc/passwd\" dropped: `..` climbs out of the workspace",
        ]
    );
}

#[test]
fn limits_drop_whole_items_with_a_note_and_never_cut_text() {
    let long = "x".repeat(MAX_ITEM_CHARS + 1);
    let risks: Vec<String> = (1..=MAX_PLAN_ITEMS + 3).map(|n| format!("\"risk {n}\"")).collect();
    let check = "y".repeat(MAX_CHECK_CHARS + 1);
    let plan = plan_with(
        &format!(r#","approach":"{long}","risks":[{}],"tests":["ok","{long}"]"#, risks.join(",")),
        &format!(r#","check":"{check}""#),
    );
    assert_eq!(plan.judgement.approach, None);
    assert_eq!(plan.judgement.risks.len(), MAX_PLAN_ITEMS);
    assert_eq!(plan.judgement.risks.last().unwrap(), &format!("risk {MAX_PLAN_ITEMS}"));
    assert_eq!(plan.judgement.tests, ["ok"]);
    assert_eq!(plan.steps[2].check, None);
    assert_eq!(
        plan.notes,
        [
            format!("approach dropped: longer than {MAX_ITEM_CHARS} characters"),
            format!("risks: 3 more dropped: at most {MAX_PLAN_ITEMS}"),
            format!("tests: item 2 dropped: longer than {MAX_ITEM_CHARS} characters"),
            format!("step 3: check dropped: longer than {MAX_CHECK_CHARS} characters"),
        ]
    );
}

#[test]
fn notes_are_capped() {
    let paths: Vec<String> = (0..100).map(|n| format!("\"../{n}\"")).collect();
    let plan = plan_with(&format!(r#","files_to_modify":[{}]"#, paths.join(",")), "");
    assert_eq!(plan.notes.len(), MAX_NOTES + 1);
    assert_eq!(plan.notes.last().unwrap(), "more was dropped than these notes list");
}

#[test]
fn a_plan_without_optional_fields_serialises_as_before() {
    let json = serde_json::to_value(plan_of(&format!("```plan\n{ONE_STEP}\n```"))).unwrap();
    let mut keys: Vec<&str> = json.as_object().unwrap().keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["aim", "libraries", "sandbox", "steps", "title"]);
    assert_eq!(json["steps"][0], serde_json::json!({"action": "do", "expected": "done"}));
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
        Just("{\"action\":\"a\",\"depends_on\":[".to_string()),
        Just("\"files\":{\"create\":[\"../x\",".to_string()),
        Just("\"check\":\"`make`\",".to_string()),
        Just("\"risks\":[\"r\",".to_string()),
        Just("3,0,1],".to_string()),
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
            ReplyKind::Plan(plan) => {
                prop_assert!(!plan.steps.is_empty());
                prop_assert!(plan.notes.len() <= MAX_NOTES + 1);
                prop_assert!(plan.judgement.risks.len() <= MAX_PLAN_ITEMS);
                for (index, step) in plan.steps.iter().enumerate() {
                    prop_assert!(step.depends_on.iter().all(|n| (1..=index as u32).contains(n)));
                    prop_assert!(step.files.iter().all(|path| !path.split('/').any(|s| s == "..")));
                }
            }
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
