//! Table tests of the plan document: the optional fields of DESIGN §14 kept from the fence,
//! anchored to the workspace, carried through a user's edit and an executor's revision, and
//! left out of the JSON when empty.

use serde_json::json;

use super::*;
use crate::tasks::{TaskList, TaskStatus};

fn facts(workspace: Option<&str>) -> PlanFacts {
    PlanFacts {
        workspace: workspace.map(str::to_string),
        sandbox_exists: false,
        context7_available: false,
        files: vec![],
        created_at: "2026-12-04T05:00:00Z".into(),
        revision: 0,
        approval: Approval::Pending,
    }
}

fn step(action: &str, depends_on: &[u32], check: Option<&str>) -> PlanStep {
    PlanStep {
        action: action.into(),
        depends_on: depends_on.to_vec(),
        check: check.map(str::to_string),
        ..PlanStep::default()
    }
}

fn plan(steps: Vec<PlanStep>, create: &[&str]) -> Plan {
    let planned_files = PlannedFiles {
        create: create.iter().map(|path| path.to_string()).collect(),
        modify: vec![],
    };
    Plan {
        title: "T".into(),
        steps,
        judgement: PlanJudgement { planned_files, ..PlanJudgement::default() },
        ..Plan::default()
    }
}

#[test]
fn absolute_paths_are_made_relative_to_the_workspace_or_dropped_with_a_note() {
    let paths = ["/w/src/a.rs", "src/b.rs", "/etc/passwd", "/w/src/b.rs"];
    let cases: [(Option<&str>, &[&str], &[&str]); 2] = [
        (
            Some("/w"),
            &["src/a.rs", "src/b.rs"],
            &["files.create: \"/etc/passwd\" dropped: outside the workspace"],
        ),
        (None, &["/w/src/a.rs", "src/b.rs", "/etc/passwd", "/w/src/b.rs"], &[]),
    ];
    for (workspace, kept, notes) in cases {
        let document =
            build_plan_document(&plan(vec![step("s", &[], None)], &paths), "", &facts(workspace));
        assert_eq!(document.judgement.planned_files.create, kept, "{workspace:?}");
        assert_eq!(document.notes, notes, "{workspace:?}");
    }
}

#[test]
fn an_edit_sets_the_optional_fields_and_is_held_to_the_same_rules() {
    let current =
        build_plan_document(&plan(vec![step("a", &[], None)], &[]), "", &facts(Some("/w")));
    let edit: PlanEdit = serde_json::from_value(json!({
        "approach": "By hand",
        "risks": ["It breaks", " "],
        "planned_files": {"modify": ["/w/README.md", "../x"]},
        "complexity": "high",
        "steps": [
            {"action": "a", "expected": "", "check": "make a"},
            {"action": "b", "expected": "", "depends_on": [1, 2]}
        ]
    }))
    .expect("the edit type takes the new fields");
    let edited = edited_plan_document(&current, &edit, "later").unwrap();
    assert_eq!(edited.judgement.approach.as_deref(), Some("By hand"));
    assert_eq!(edited.judgement.risks, ["It breaks"]);
    assert_eq!(edited.judgement.planned_files.modify, ["README.md"]);
    assert_eq!(edited.judgement.complexity, Some(Complexity::High));
    assert_eq!(edited.steps[0].check.as_deref(), Some("make a"));
    assert_eq!(edited.steps[1].depends_on, [1]);
    assert_eq!(
        edited.notes,
        [
            "files.modify: \"../x\" dropped: `..` climbs out of the workspace",
            "step 2: depends_on 2 dropped: no earlier step 2",
        ]
    );
    assert!(edited.text.contains("**Approach:** By hand") && edited.text.contains("`make a`"));
    let cleared: PlanEdit = serde_json::from_value(json!({"approach": "", "risks": []})).unwrap();
    let cleared = edited_plan_document(&edited, &cleared, "later still").unwrap();
    assert_eq!((cleared.judgement.approach, cleared.judgement.risks.len()), (None, 0));
    assert_eq!(cleared.judgement.complexity, Some(Complexity::High), "not named, kept");
}

#[test]
fn an_executor_revision_keeps_checks_and_renumbers_dependencies() {
    let steps = vec![
        step("one", &[], Some("make one")),
        step("two", &[1], None),
        step("three", &[1, 2], Some("make three")),
    ];
    let current = build_plan_document(&plan(steps, &[]), "", &facts(None));
    let mut tasks = TaskList::from_steps(["one", "two", "three"]).unwrap().tasks;
    tasks[1].status = TaskStatus::Dropped;
    let revised = executor_revision(&current, &tasks, "later");
    let kept: Vec<(&str, &[u32], Option<&str>)> = revised
        .steps
        .iter()
        .map(|s| (s.action.as_str(), s.depends_on.as_slice(), s.check.as_deref()))
        .collect();
    assert_eq!(kept, [("one", &[][..], Some("make one")), ("three", &[1][..], Some("make three"))]);
    assert_eq!(revised.notes, ["step 2: depends_on 2 dropped: no earlier step 2"]);
}

#[test]
fn empty_optional_fields_are_left_out_of_the_document_json() {
    let bare = build_plan_document(&plan(vec![step("a", &[], None)], &[]), "", &facts(None));
    let json = serde_json::to_value(&bare).unwrap();
    for key in
        ["approach", "alternatives", "risks", "planned_files", "tests", "complexity", "notes"]
    {
        assert!(json.get(key).is_none(), "{key} in {json}");
    }
    assert_eq!(json["steps"][0], json!({"action": "a", "expected": ""}));
    let full = plan(vec![step("a", &[], Some("make")), step("b", &[1], None)], &["x.rs"]);
    let json = serde_json::to_value(build_plan_document(&full, "", &facts(None))).unwrap();
    assert_eq!(json["planned_files"], json!({"create": ["x.rs"]}));
    assert_eq!(json["steps"][1], json!({"action": "b", "expected": "", "depends_on": [1]}));
    let back: PlanDocument = serde_json::from_value(json).unwrap();
    assert_eq!(back.steps[0].check.as_deref(), Some("make"), "the document reads back");
}
