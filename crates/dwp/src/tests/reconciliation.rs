//! Reconciliation: README.md wins, within "nothing completed without evidence".

use super::{apply, parse_readme, reconcile, Change, Refusal, Status};
use super::{at, by, pass, plan};

#[test]
fn markdown_wins_both_ways_and_is_logged() {
    let recorded = Change::RecordGates { task: 2, gates: vec![pass("make")] };
    let completed =
        Change::Complete { task: 1, gates: vec![pass("make")], outcome: None, commit: None };
    let state = apply(&plan(&["a", "b"]), &completed, &at(1), &by()).unwrap().state;
    let state = apply(&state, &recorded, &at(2), &by()).unwrap().state;
    let readme = parse_readme(
        "Approval: pre_approved\n- [ ] a {#task-1}\n- [x] b {#task-2}\n- [ ] c {#task-3}\n",
    );
    let applied = reconcile(&state, &readme, &at(3), &by()).unwrap();
    let statuses: Vec<Status> = applied.state.tasks.iter().map(|t| t.status).collect();
    assert_eq!(statuses, vec![Status::InProgress, Status::Completed, Status::Pending]);
    assert_eq!(applied.state.tasks[2].title, "c");
    assert_eq!(applied.state.approval, Some(super::ApprovalState::PreApproved));
    assert_eq!(applied.log[0], "Reconciled state.json with README.md (Markdown wins).");
    assert_eq!(applied.log.len(), 5, "{:#?}", applied.log);
}

#[test]
fn a_tick_without_evidence_or_a_vanished_task_is_refused() {
    let state = plan(&["a", "b"]);
    let ticked = parse_readme("- [x] a {#task-1}\n- [ ] b {#task-2}\n");
    assert_eq!(
        reconcile(&state, &ticked, &at(1), &by()),
        Err(Refusal::CheckedWithoutEvidence { task: 1 })
    );
    let vanished = parse_readme("- [ ] a {#task-1}\n");
    assert_eq!(
        reconcile(&state, &vanished, &at(1), &by()),
        Err(Refusal::MissingFromReadme { task: 2 })
    );
    let agreeing = parse_readme("- [ ] a {#task-1}\n- [ ] b {#task-2}\n");
    assert!(reconcile(&state, &agreeing, &at(1), &by()).unwrap().log.is_empty());
}
