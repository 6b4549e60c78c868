//! The verifier's findings: a table of README/state pairs and what each one reports.

use std::collections::BTreeMap;

use super::{
    apply, parse_readme, render_task_block, verify, Change, GateRecord, PlanState, Status,
};
use super::{at, by, pass, plan};

/// The findings of `state` against a README rendered from `readme_from`, as lines.
fn findings(readme: &str, state: &PlanState) -> Vec<String> {
    verify(&parse_readme(readme), state, &BTreeMap::new()).iter().map(ToString::to_string).collect()
}

fn completed_first() -> PlanState {
    let change =
        Change::Complete { task: 1, gates: vec![pass("make")], outcome: None, commit: None };
    apply(&plan(&["a", "b"]), &change, &at(1), &by()).unwrap().state
}

#[test]
fn agreeing_files_have_no_findings() {
    let state = completed_first();
    assert_eq!(findings(&render_task_block(&state), &state), Vec::<String>::new());
}

#[test]
fn each_disagreement_is_reported_with_its_direction() {
    let state = completed_first();
    let table: [(&str, &[&str]); 5] = [
        (
            "- [ ] **1.** a {#task-1}\n- [ ] **2.** b {#task-2}\n",
            &["[state_ahead] task 1: state.json says completed, README.md shows [ ]: state.json is ahead and stale (Markdown wins: the task is not done)"],
        ),
        (
            "- [x] **1.** a {#task-1}\n- [x] **2.** b {#task-2}\n",
            &["[readme_ahead] task 2: README.md shows [x], state.json says pending: README is ahead, state.json is stale (Markdown wins)"],
        ),
        ("- [x] **1.** a {#task-1}\n", &["[missing_from_readme] task 2: in state.json but has no checkbox in README.md"]),
        (
            "- [x] **1.** a {#task-1}\n- [ ] **2.** b {#task-2}\n- [ ] c {#task-3}\n- [ ] d\n",
            &[
                "[missing_from_state] README.md line 4 is a checkbox without a {#task-N} anchor",
                "[missing_from_state] task 3: in README.md but not in state.json",
            ],
        ),
        (
            "Approval: pending\n- [x] **1.** a {#task-1}\n  - Status: pending\n- [ ] **2.** b {#task-2}\n",
            &[
                "[approval] README.md says Approval: pending, state.json says approved",
                "[contradiction] task 1: completed in state.json, but its own log still says Status: pending",
            ],
        ),
    ];
    for (readme, expected) in table {
        assert_eq!(findings(readme, &state), expected.to_vec(), "{readme}");
    }
}

#[test]
fn records_that_contradict_themselves_are_reported() {
    let mut state = completed_first();
    let record = |evidence: &str, exit_code: i64| GateRecord {
        command: "bench".into(),
        passes: true,
        exit_code,
        last_run: at(2),
        evidence: evidence.into(),
        invalidated: None,
        extra: Default::default(),
    };
    state.tasks[1].gates = vec![record("not run: no device", 0)];
    state.tasks[0].gates.push(GateRecord {
        command: "lint".into(),
        passes: false,
        ..record("3 warnings", 1)
    });
    let readme = render_task_block(&state);
    assert_eq!(
        findings(&readme, &state),
        vec![
            "[evidence] task 1: completed while gate `lint` fails (exit code 1) with no later passing run",
            "[contradiction] task 2: gate `bench` is a passing record whose evidence says the check never ran (\"not run\")",
        ]
    );
    state.tasks[0].gates.clear();
    state.tasks[1].gates = vec![record("", 2)];
    assert_eq!(
        findings(&render_task_block(&state), &state),
        vec![
            "[contradiction] task 2: gate `bench` says passes:true with exit code 2 and evidence \"\"",
            "[evidence] task 1: completed without any gate record",
        ]
        .into_iter()
        .rev()
        .collect::<Vec<_>>()
    );
}

#[test]
fn a_completion_resting_on_invalidated_evidence_is_reported() {
    let mut state = completed_first();
    state.tasks[0].gates[0].invalidated = Some("reopened".into());
    assert_eq!(state.tasks[0].status, Status::Completed);
    assert_eq!(
        findings(&render_task_block(&state), &state),
        vec!["[evidence] task 1: completed, but relies only on evidence invalidated by a reopen"]
    );
}

#[test]
fn a_full_plans_task_file_is_its_log() {
    let state = completed_first();
    let logs = BTreeMap::from([(1, "in_progress".to_owned())]);
    let found = verify(&parse_readme(&render_task_block(&state)), &state, &logs);
    assert_eq!(found.len(), 1);
    assert!(found[0].message.contains("Status: in_progress"), "{}", found[0]);
}
