//! Seed 002's deferred requirement and completed investigation, and the reopen that is an
//! amendment: what each writes into `state.json`, what the verifier reports and what the
//! finaliser concludes.

use std::collections::BTreeMap;

use super::{
    apply, at, by, parse_readme, pass, plan, render_task_block, verify, Change, PlanState, Refusal,
    Status,
};
use crate::rules::evidence_states::record_investigation;
use crate::rules::finalization::{finalize, Candidate};
use crate::{AmendKind, AmendmentInput, Authority, Verdict};

fn amend(kind: AmendKind, task: u32, observed: &str, target: Option<u32>) -> Change {
    Change::Amend(AmendmentInput {
        kind,
        tasks: vec![task],
        observed: observed.to_owned(),
        new_title: None,
        new_check: None,
        authority: Authority::User,
        change: None,
        target,
    })
}

fn step(state: &PlanState, change: Change, minute: u32) -> Result<PlanState, Refusal> {
    apply(state, &change, &at(minute), &by()).map(|applied| applied.state)
}

fn complete(state: &PlanState, task: u32, minute: u32) -> PlanState {
    let change = Change::Complete { task, gates: vec![pass("make")], outcome: None, commit: None };
    step(state, change, minute).unwrap()
}

fn findings(state: &PlanState) -> Vec<String> {
    let readme = parse_readme(&render_task_block(state));
    verify(&readme, state, &BTreeMap::new()).iter().map(ToString::to_string).collect()
}

/// The finaliser's reasons over `state`, with no conformance finding and every completed
/// task's live gate run again, passing (a record alone is never VERIFIED).
fn reasons(state: &PlanState) -> (Verdict, Vec<String>) {
    let completed = state.tasks.iter().filter(|task| task.status == crate::Status::Completed);
    let reruns: Vec<crate::Rerun> = completed
        .flat_map(|task| {
            let live = task.gates.iter().filter(|gate| gate.invalidated.is_none());
            live.map(|gate| crate::Rerun {
                task: task.id,
                run: crate::GateInput::new(&gate.command, 0, "passed again"),
                ran: true,
            })
            .collect::<Vec<_>>()
        })
        .collect();
    let candidate = Candidate {
        state,
        sha256: "0",
        conformance: &[],
        reruns: &reruns,
        planned: state.tasks.len() as u32,
    };
    let verdict = finalize(&candidate, &at(59), &by());
    (verdict.verdict, verdict.reasons)
}

#[test]
fn a_deferred_requirement_is_closed_by_its_amendment_alone() {
    let state = plan(&["webhook", "retry", "docs"]);
    let deferred =
        step(&state, amend(AmendKind::Defer, 2, "the queue comes with task 3", Some(3)), 1)
            .unwrap();
    let record = &deferred.amendments[0];
    assert_eq!(
        (record.kind, record.target, record.tasks.clone()),
        (AmendKind::Defer, Some(3), vec![2])
    );
    assert_eq!(record.original, vec!["retry"], "the criterion verbatim");
    assert_eq!(deferred.task(2).unwrap().status, Status::Skipped);
    assert!(record.resolution.contains("deferred to task 3; only this amendment closes task 2"));
    assert_eq!(findings(&deferred), Vec::<String>::new());
    let finished = complete(&complete(&deferred, 1, 2), 3, 3);
    assert_eq!(reasons(&finished), (Verdict::Verified, vec![]));

    // The target leaves the plan too: the deferred criterion is never met.
    let skip = Change::Skip { task: 3, reason: "no time".into() };
    let dropped = step(&complete(&deferred, 1, 2), skip, 3).unwrap();
    let never_met = "its criterion was deferred to task 3, which is skipped: the deferred criterion is never met";
    assert_eq!(findings(&dropped), vec![format!("[evidence] task 2: {never_met}")]);
    let (verdict, reasons) = reasons(&dropped);
    assert_eq!(verdict, Verdict::Unverified);
    assert!(reasons.iter().any(|reason| reason.ends_with(never_met)), "{reasons:?}");
}

#[test]
fn a_deferral_needs_an_open_target_other_than_its_source() {
    let state = complete(&plan(&["a", "b", "c"]), 1, 1);
    let table = [
        (2, Some(2), "a task cannot take its own criterion"),
        (2, Some(1), "the target is completed; reopen it first"),
        (2, Some(9), "the plan has no such task"),
        (1, Some(3), "it is completed by its own gate; reopen it first"),
        (2, None, "a deferral names the task its criterion moves to"),
    ];
    for (task, target, says) in table {
        let refusal = step(&state, amend(AmendKind::Defer, task, "x", target), 2).unwrap_err();
        assert!(refusal.to_string().contains(says), "{task}→{target:?}: {refusal}");
    }
}

#[test]
fn an_investigation_closes_a_task_only_through_an_amendment_naming_it() {
    let state = complete(&plan(&["measure", "ship"]), 2, 1);
    let refusal = step(&state, amend(AmendKind::Investigation, 1, "x", None), 2).unwrap_err();
    assert_eq!(refusal, Refusal::NoInvestigation { task: 1 });
    let (recorded, log) =
        record_investigation(&state, 1, "p99 is bounded by the disk, not the code", &at(2))
            .unwrap();
    assert_eq!(
        log,
        vec!["Task 1 investigation recorded: p99 is bounded by the disk, not the code."]
    );
    assert_eq!(recorded.task(1).unwrap().status, Status::Pending, "closes nothing by itself");
    let (_, open) = reasons(&recorded);
    assert!(open.contains(&"task 1 “measure” is pending, not finished".to_owned()), "{open:?}");

    let closed = step(
        &recorded,
        amend(AmendKind::Investigation, 1, "the target was unmeasurable here", None),
        3,
    )
    .unwrap();
    let record = &closed.amendments[0];
    assert_eq!(record.investigation.as_deref(), Some(at(2).as_str()), "it names the record");
    assert_eq!(closed.task(1).unwrap().status, Status::Completed);
    assert!(closed.task(1).unwrap().gates.is_empty(), "no gate of its own");
    assert_eq!(findings(&closed), Vec::<String>::new());
    assert_eq!(reasons(&closed), (Verdict::Verified, vec![]));

    // The same completion without the amendment (a hand-edited state.json) is not closed.
    let mut unnamed = closed.clone();
    unnamed.amendments.clear();
    let unnamed_words = "completed on an investigation that no amendment names";
    assert!(
        findings(&unnamed)
            .iter()
            .any(|f| f.starts_with("[evidence] task 1: ") && f.contains(unnamed_words)),
        "{:?}",
        findings(&unnamed)
    );
    let (verdict, reasons) = reasons(&unnamed);
    assert_eq!(verdict, Verdict::Unverified);
    assert!(reasons.iter().any(|reason| reason.contains(unnamed_words)), "{reasons:?}");
    // An amendment naming another investigation than the one on record is reported too.
    let mut other = closed;
    other.task_mut(1).unwrap().investigation.as_mut().unwrap().at = at(9);
    assert!(findings(&other)
        .iter()
        .any(|f| f.contains("amendment 1 names an investigation the task does not have")));
}

#[test]
fn a_reopen_with_a_reason_is_an_amendment_recorded_before_the_evidence_it_invalidates() {
    let state = complete(&plan(&["a", "b"]), 1, 1);
    let applied =
        apply(&state, &amend(AmendKind::Reopen, 1, "criterion widened", None), &at(2), &by())
            .unwrap();
    let record = &applied.state.amendments[0];
    assert_eq!((record.kind, record.original.clone()), (AmendKind::Reopen, vec!["a".to_owned()]));
    assert_eq!(record.evidence, "task 1: `make` invalidated by the reopen (kept as history)");
    assert!(
        applied.log[0].starts_with("Amendment 1: task 1 reopened to be refined"),
        "{:?}",
        applied.log
    );
    assert!(
        applied.log[1].starts_with("Task 1 reopened (completed): criterion widened"),
        "{:?}",
        applied.log
    );
    assert!(applied.log[2].contains("invalidated by the reopen"), "{:?}", applied.log);
    let task = applied.state.task(1).unwrap();
    assert_eq!(task.status, Status::InProgress);
    assert!(task.gates.iter().all(|gate| gate.invalidated.is_some()));
    // A task with nothing to reopen is refused, and no record is written.
    let refusal = step(&state, amend(AmendKind::Reopen, 2, "x", None), 3).unwrap_err();
    assert!(matches!(refusal, Refusal::NothingToReopen { task: 2, .. }), "{refusal}");
}
