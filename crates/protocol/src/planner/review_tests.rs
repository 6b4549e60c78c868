//! The tests of plan comments: anchors checked and quoted, and the revision request.

use serde_json::json;

use super::*;
use crate::planner::PlanDocument;

/// A plan of four steps with an aim, risks and no tests or libraries.
fn plan() -> PlanDocument {
    let step =
        |n: u32| json!({"action": format!("Do part {n}"), "expected": format!("part {n} works")});
    serde_json::from_value(json!({
        "text": "# Export", "title": "Export", "aim": "Orders download as CSV",
        "steps": [step(1), step(2), step(3), {"action": "Write the test", "expected": ""}],
        "libraries": [],
        "sandbox": {"policy": "create", "notes": "sample orders", "dir": null, "exists": false},
        "risks": ["large exports", "odd encodings"],
        "questions": null, "files": [],
        "context": {"workspace_path": null, "context7_available": false},
        "created_at": "2026-12-05T10:00:00Z", "approval": "pending", "revision": 1,
    }))
    .unwrap()
}

fn draft(anchor: serde_json::Value, text: &str) -> CommentDraft {
    serde_json::from_value(json!({"anchor": anchor, "text": text})).unwrap()
}

#[test]
fn each_anchor_is_quoted_with_what_the_card_showed_there() {
    let cases = [
        (json!({"step": 2}), "Do part 2 (expected: part 2 works)"),
        (json!({"step": 4}), "Write the test"),
        (json!({"field": "aim"}), "Orders download as CSV"),
        (json!({"field": "risks"}), "large exports; odd encodings"),
        (json!({"field": "sandbox"}), "create: sample orders"),
    ];
    for (anchor, quote) in cases {
        let comments = review_comments(&plan(), &[draft(anchor.clone(), " why? ")]).unwrap();
        assert_eq!(comments[0].quote, quote, "{anchor}");
        assert_eq!(comments[0].text, "why?", "{anchor}");
    }
}

#[test]
fn an_anchor_the_plan_does_not_have_or_a_bad_text_is_refused_naming_the_comment() {
    let ok = draft(json!({"step": 1}), "fine");
    let cases = [
        (draft(json!({"step": 5}), "x"), ReviewError::NoSuchStep { index: 2, step: 5, steps: 4 }),
        (draft(json!({"step": 0}), "x"), ReviewError::NoSuchStep { index: 2, step: 0, steps: 4 }),
        (
            draft(json!({"field": "tests"}), "x"),
            ReviewError::EmptyField { index: 2, field: PlanField::Tests },
        ),
        (
            draft(json!({"field": "libraries"}), "x"),
            ReviewError::EmptyField { index: 2, field: PlanField::Libraries },
        ),
        (draft(json!({"step": 1}), "  \n "), ReviewError::EmptyText { index: 2 }),
        (
            draft(json!({"step": 1}), &"x".repeat(MAX_COMMENT_CHARS + 1)),
            ReviewError::TooLong { index: 2 },
        ),
    ];
    for (bad, error) in cases {
        assert_eq!(review_comments(&plan(), &[ok.clone(), bad]), Err(error.clone()), "{error}");
    }
    let mut blank = plan();
    blank.steps[1].action = " ".into();
    blank.steps[1].expected = String::new();
    let on_blank = [draft(json!({"step": 2}), "x")];
    assert_eq!(
        review_comments(&blank, &on_blank),
        Err(ReviewError::BlankStep { index: 1, step: 2 })
    );
    let many = vec![ok; MAX_COMMENTS + 1];
    assert_eq!(review_comments(&plan(), &many), Err(ReviewError::TooMany));
    let unknown = json!({"anchor": {"field": "title"}, "text": "x"});
    assert!(serde_json::from_value::<CommentDraft>(unknown).is_err());
}

#[test]
fn a_long_anchor_is_quoted_cut_with_an_ellipsis() {
    let mut long = plan();
    long.aim = "é".repeat(MAX_QUOTE_CHARS + 50);
    let comments = review_comments(&long, &[draft(json!({"field": "aim"}), "shorter")]).unwrap();
    assert_eq!(comments[0].quote.chars().count(), MAX_QUOTE_CHARS + 1);
    assert!(comments[0].quote.ends_with('…'));
}

#[test]
fn the_revision_request_quotes_every_comment_in_the_cards_order() {
    let drafts = [
        draft(json!({"step": 4}), "Use proptest here.\nAnd a fixture."),
        draft(json!({"field": "risks"}), "Say what happens at 1 GB."),
        draft(json!({"step": 2}), "Stream, do not buffer."),
    ];
    let comments = review_comments(&plan(), &drafts).unwrap();
    let text = revision_request(1, Some("Keep it small."), &comments);
    expect_test::expect![[r#"
        What should change in the plan?
        User's answer: Keep it small.

        My comments on revision 1 of the plan:
        1. On step 2, which says "Do part 2 (expected: part 2 works)":
           Stream, do not buffer.
        2. On step 4, which says "Write the test":
           Use proptest here.
           And a fixture.
        3. On the risks, which says "large exports; odd encodings":
           Say what happens at 1 GB.

        Revise the plan so that it answers every comment."#]]
    .assert_eq(&text);
    let alone = revision_request(1, None, &comments[..1]);
    assert!(alone.starts_with("What should change in the plan?\nUser's answer: see my comments"));
    assert_eq!(
        revision_request(3, Some(" Shorter "), &[]),
        "What should change in the plan?\nUser's answer: Shorter"
    );
}
