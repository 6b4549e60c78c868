//! The plan folder never claims more than the truth (issue 49): the last task closes
//! through the finaliser, a record alone is never VERIFIED, a failing rerun is a gate
//! record that withdraws its task, a restore withdraws a verdict (kept as history), the
//! auto-approve setting cannot drop most of a plan and still verify, and the user's
//! acceptance of an unverified plan is recorded.

use super::at;
use super::finishing::{amendment, clean, done, finished, rerun, state};
use super::support::*;
use crate::{AmendKind, Authority, PlanApproval, Rerun, TrackedStatus, Verdict};

fn passing_reruns() -> [Rerun; 2] {
    [rerun(1, "test -f one.txt", 0, "exit 0"), rerun(2, "test -f two.txt", 0, "exit 0")]
}

#[test]
fn finished_work_is_not_completed_until_the_finaliser_verifies_it() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let before = state(&dir);
    assert_eq!(before["status"], "in_progress", "awaiting its verdict: {before:#}");
    assert_eq!(before["completed_count"], 2, "{before:#}");
    plan_files().finalize(&dir, &passing_reruns(), &at(4)).unwrap();
    let after = state(&dir);
    assert_eq!(after["status"], "completed", "{after:#}");
    assert_eq!(after["verification"]["verdict"], "VERIFIED", "{after:#}");
    assert_eq!(after["verification"]["attestation"], "analysis_results/FINALIZATION.json");
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn records_nobody_ran_again_are_never_verified() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let report = plan_files().finalize(&dir, &[], &at(4)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified);
    let reasons = report.finalization.reasons.join("\n");
    assert!(
        reasons.contains(
            "task 1 “Create webhook endpoint”: its gate `test -f one.txt` was not run again"
        ),
        "{reasons}"
    );
    let not_run = Rerun { ran: false, ..rerun(2, "test -f two.txt", -1, "not run again: stopped") };
    let report = plan_files().finalize(&dir, &[not_run], &at(5)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified);
    let reasons = report.finalization.reasons.join("\n");
    assert!(reasons.contains("`test -f two.txt` not run again: stopped"), "{reasons}");
    let gates = state(&dir)["tasks"][1]["gates"].clone();
    assert_eq!(
        gates.as_array().unwrap().len(),
        1,
        "a run that did not happen is not filed: {gates:#}"
    );
    assert_eq!(state(&dir)["status"], "in_progress");
}

#[test]
fn a_check_that_fails_when_run_again_is_filed_and_withdraws_its_task() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let reruns =
        [rerun(1, "test -f one.txt", 0, "exit 0"), rerun(2, "test -f two.txt", 1, "exit 1")];
    let report = plan_files().finalize(&dir, &reruns, &at(4)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified);
    assert_eq!(report.reopened, [2]);
    let now = state(&dir);
    assert_eq!(now["tasks"][1]["status"], "in_progress", "{now:#}");
    assert_eq!(now["tasks"][1]["gates"][0]["passes"], false, "the rerun is the record: {now:#}");
    assert_eq!(now["status"], "in_progress");
    assert_eq!(now["verification"]["verdict"], "UNVERIFIED");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(progress.contains("Task 2 is no longer completed"), "{progress}");
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    assert!(readme.contains("- [ ] ") && readme.contains("- [x] "), "{readme}");
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn a_restore_of_a_finished_plan_withdraws_its_verdict_and_keeps_it_as_history() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    plan_files().finalize(&dir, &passing_reruns(), &at(4)).unwrap();
    let mut tasks = from_steps(&STEPS);
    done(&mut tasks, 1, "test -f one.txt");
    tasks[2].status = TrackedStatus::Dropped;
    tasks[2].drop_settled = crate::DropSettled::Approved;
    let cause = "the user restored the workspace to checkpoint 3, before task 2";
    plan_files().sync_restored(&dir, &tasks, cause, &at(5)).unwrap();
    let now = state(&dir);
    assert_eq!(now["tasks"][1]["status"], "in_progress", "{now:#}");
    assert_eq!(now["status"], "in_progress", "{now:#}");
    assert!(now.get("verification").is_none(), "{now:#}");
    let kept = &now["withdrawn_verifications"][0];
    assert_eq!(kept["verdict"], "VERIFIED", "{now:#}");
    assert!(kept["withdrawn"].as_str().unwrap().contains(cause), "{now:#}");
    assert!(!dir.file("analysis_results/FINALIZATION.json").exists());
    let history = read_json(&dir.file("analysis_results/history/FINALIZATION-1.json"));
    assert_eq!(history["verdict"], "VERIFIED");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(
        progress.contains(&format!("Task 2 open again (was completed): {cause}")),
        "{progress}"
    );
    assert!(progress.contains("The plan's completion is withdrawn"), "{progress}");
    assert!(!progress.contains("restarted by the executor"), "{progress}");
    assert_eq!(clean(&dir), Vec::<String>::new());
    // An attestation put back by hand claims more than the state: the verifier says so.
    let stale = dir.file("analysis_results/FINALIZATION.json");
    std::fs::copy(dir.file("analysis_results/history/FINALIZATION-1.json"), &stale).unwrap();
    let found = clean(&dir).join("\n");
    assert!(
        found.contains("FINALIZATION.json says VERIFIED, but state.json holds no verdict"),
        "{found}"
    );
}

#[test]
fn most_planned_steps_dropped_by_auto_approve_is_unverified() {
    let ws = workspace(true);
    let steps = ["One", "Two", "Three", "Four"];
    let plan = plan_document("Four steps", &steps, PlanApproval::Approved);
    let dir = plan_files().materialize(ws.path(), &plan, &from_steps(&steps), "c", &at(0));
    let (dir, mut tasks) = (dir.unwrap(), from_steps(&steps));
    done(&mut tasks, 1, "test -f one.txt");
    plan_files().sync(&dir, &tasks, &at(1)).unwrap();
    for (n, id) in [2, 3, 4].into_iter().enumerate() {
        let auto = crate::AmendmentInput {
            authority: Authority::AutoApprove,
            ..amendment(AmendKind::Drop, id, None)
        };
        plan_files().amend(&dir, auto, &at(2 + n as u32)).unwrap();
        tasks[id as usize - 1].status = TrackedStatus::Dropped;
        tasks[id as usize - 1].drop_settled = crate::DropSettled::Approved;
    }
    plan_files().sync(&dir, &tasks, &at(6)).unwrap();
    let report =
        plan_files().finalize(&dir, &[rerun(1, "test -f one.txt", 0, "ok")], &at(7)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified, "{:?}", report.finalization.reasons);
    assert_eq!((report.finalization.dropped_without_user, report.finalization.planned), (3, 4));
    let reasons = report.finalization.reasons.join("\n");
    assert!(
        reasons.contains("3 of 4 planned steps were dropped by the auto-approve setting"),
        "{reasons}"
    );
}

#[test]
fn the_users_acceptance_of_an_unverified_plan_is_recorded_once() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let refused = plan_files().accept(&dir, "The user", &at(4)).unwrap_err();
    assert!(refused.to_string().contains("not finalised"), "{refused}");
    plan_files().finalize(&dir, &[], &at(5)).unwrap();
    plan_files().accept(&dir, "The user", &at(6)).unwrap();
    let now = state(&dir);
    assert_eq!(now["status"], "completed", "all finished, accepted as is: {now:#}");
    assert_eq!(now["verification"]["verdict"], "UNVERIFIED");
    assert_eq!(now["verification"]["accepted"]["by"], "The user");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(progress.contains("The user accepted the plan as it is, not verified"), "{progress}");
    let again = plan_files().accept(&dir, "The user", &at(7)).unwrap_err();
    assert!(again.to_string().contains("accepted already"), "{again}");
}

#[test]
fn a_plan_set_aside_is_a_record_and_the_chats_next_plan_gets_its_own_folder() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    let why = "the user edited the request it was made for, and the chat plans again";
    assert!(crate::PlanFolderWriter::locate(ws.path(), CHAT).unwrap().is_some());
    assert!(plan_files().supersede(&dir, why, &at(1)).unwrap());
    assert!(!plan_files().supersede(&dir, why, &at(2)).unwrap(), "once is enough");
    let now = state(&dir);
    assert_eq!(now["superseded"]["why"], why, "{now:#}");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(progress.contains(&format!("The plan is set aside: {why}.")), "{progress}");
    assert!(progress.contains("Its open tasks (1, 2, 3) stay as they were."), "{progress}");
    let found = crate::PlanFolderWriter::locate(ws.path(), CHAT).unwrap();
    assert!(found.is_none(), "set aside, it is not the chat's current plan: {found:?}");
    let next = plan_document("The next plan", &STEPS, PlanApproval::Approved);
    let new = plan_files().materialize(ws.path(), &next, &from_steps(&STEPS), CHAT, &at(3));
    let new = new.unwrap();
    assert_ne!(new.path(), dir.path(), "a folder of its own");
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn the_folder_is_held_to_the_chats_work_not_only_to_itself() {
    use crate::{work_findings, ChatWork};
    let ws = workspace(true);
    let dir = finished(ws.path());
    let now: crate::PlanState = serde_json::from_value(state(&dir)).unwrap();
    let mut tasks = from_steps(&STEPS);
    done(&mut tasks, 1, "test -f one.txt");
    let found: Vec<String> =
        work_findings(&now, &ChatWork::Listed(tasks)).iter().map(ToString::to_string).collect();
    assert_eq!(found.len(), 2, "{found:?}");
    let said = "the chat's task list has it active, but state.json says completed";
    assert!(found[0].contains(&format!("[work] task 2: {said}")), "{found:?}");
    let said = "the chat's task list has it pending, but state.json says skipped";
    assert!(found[1].contains(&format!("[work] task 3: {said}")), "{found:?}");
    let completed = ChatWork::Completed { verdict: Some("VERIFIED".to_owned()) };
    let found: Vec<String> =
        work_findings(&now, &completed).iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        ["[work] the chat's completion says VERIFIED, but state.json's verdict is none"]
    );
    plan_files().finalize(&dir, &passing_reruns(), &at(4)).unwrap();
    let verified: crate::PlanState = serde_json::from_value(state(&dir)).unwrap();
    assert!(work_findings(&verified, &completed).is_empty());
    assert!(work_findings(&verified, &ChatWork::Nothing).is_empty());
}

#[test]
fn a_check_run_again_that_passes_now_completes_the_task_it_had_opened() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let failing =
        [rerun(1, "test -f one.txt", 0, "exit 0"), rerun(2, "test -f two.txt", 1, "exit 1")];
    let report = plan_files().finalize(&dir, &failing, &at(4)).unwrap();
    assert_eq!(report.reopened, [2]);
    // The user fixed it by hand; the checks run again, task 2's among them.
    let report = plan_files().finalize(&dir, &passing_reruns(), &at(5)).unwrap();
    assert_eq!(report.verdict(), Verdict::Verified, "{:?}", report.finalization.reasons);
    let now = state(&dir);
    assert_eq!(now["tasks"][1]["status"], "completed", "{now:#}");
    assert_eq!(now["status"], "completed", "{now:#}");
    assert_eq!(now["withdrawn_verifications"][0]["verdict"], "UNVERIFIED", "{now:#}");
    assert!(dir.file("analysis_results/history/FINALIZATION-1.json").is_file());
    assert_eq!(clean(&dir), Vec::<String>::new());
}
