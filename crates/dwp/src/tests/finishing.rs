//! Plan folders that finish (issue 30): an approved rewording and drop written as
//! amendments with the sync going on, a box ticked or emptied by hand reconciled or held
//! and reported (never a frozen folder), Preflight's pauses as `blocked` and back, the
//! commit a completed task points at, and the finaliser's two verdicts.

use serde_json::Value;

use super::support::*;
use super::{at, verify_plan, LockOptions, PlanFolder};
use crate::{
    AmendKind, AmendmentInput, Authority, GateInput, Pause, PauseInput, Rerun, TrackedStatus,
    TrackedTask, Verdict,
};

pub(super) fn state(dir: &PlanFolder) -> Value {
    read_json(&dir.file("state.json"))
}

pub(super) fn done(tasks: &mut [TrackedTask], id: u32, command: &str) {
    let task = &mut tasks[id as usize - 1];
    task.status = TrackedStatus::Done;
    task.outcome = Some(format!("task {id} works"));
    task.gate = Some(GateInput::new(command, 0, "3 passed, 0 failed"));
    if let Some(next) = tasks.get_mut(id as usize) {
        next.status = TrackedStatus::Active;
    }
}

pub(super) fn amendment(kind: AmendKind, task: u32, new_title: Option<&str>) -> AmendmentInput {
    AmendmentInput {
        kind,
        tasks: vec![task],
        observed: "the queue already exists in the framework".to_owned(),
        new_title: new_title.map(str::to_owned),
        new_check: None,
        authority: Authority::User,
        change: Some("c1".to_owned()),
        target: None,
    }
}

pub(super) fn clean(dir: &PlanFolder) -> Vec<String> {
    verify_plan(dir, LockOptions::default())
        .unwrap()
        .findings
        .iter()
        .map(|f| f.to_string())
        .collect()
}

#[test]
fn an_approved_rewording_is_an_amendment_and_the_sync_goes_on() {
    let ws = workspace(true);
    let (dir, mut tasks) = materialised(ws.path());
    let files = plan_files();
    // The bug: the list carries the new title, and the files refused every later sync.
    files
        .amend(&dir, amendment(AmendKind::Modify, 2, Some("Use the framework's retry")), &at(1))
        .unwrap();
    tasks[1].title = "Use the framework's retry".to_owned();
    done(&mut tasks, 1, "cargo test");
    let report = files.sync(&dir, &tasks, &at(2)).unwrap();
    assert!(report.refused.is_empty() && report.disagreements.is_empty(), "{report:?}");
    let state = state(&dir);
    assert_eq!(state["tasks"][0]["status"], "completed", "{state:#}");
    assert_eq!(state["tasks"][1]["title"], "Use the framework's retry", "{state:#}");
    assert_eq!(state["tasks"][1]["status"], "in_progress", "{state:#}");
    let record = &state["amendments"][0];
    assert_eq!(record["kind"], "modify");
    assert_eq!(record["original"][0], "Add retry queue", "verbatim: {record:#}");
    assert_eq!(record["authority"], "user");
    assert_eq!(record["change"], "c1");
    assert!(record["observed"].as_str().unwrap().contains("framework"), "{record:#}");
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    assert!(
        readme.contains("**2.** Use the framework's retry") && readme.contains("Amendment 1"),
        "{readme}"
    );
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn an_approved_drop_is_skipped_with_its_amendment_and_who_approved_it() {
    let ws = workspace(true);
    let (dir, mut tasks) = materialised(ws.path());
    let auto =
        AmendmentInput { authority: Authority::AutoApprove, ..amendment(AmendKind::Drop, 3, None) };
    plan_files().amend(&dir, auto, &at(1)).unwrap();
    tasks[2].status = TrackedStatus::Dropped;
    plan_files().sync(&dir, &tasks, &at(2)).unwrap();
    let state = state(&dir);
    assert_eq!(state["tasks"][2]["status"], "skipped", "{state:#}");
    assert_eq!(state["amendments"][0]["authority"], "auto_approve", "{state:#}");
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(progress.contains("auto-approve setting"), "{progress}");
}

#[test]
fn a_box_ticked_by_hand_is_kept_and_reported_while_the_work_goes_on() {
    let ws = workspace(true);
    let (dir, mut tasks) = materialised(ws.path());
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    let ticked = readme.replace("- [ ] **3.**", "- [x] **3.**");
    assert_ne!(ticked, readme);
    std::fs::write(dir.file("README.md"), &ticked).unwrap();
    done(&mut tasks, 1, "cargo test");
    let report = plan_files().sync(&dir, &tasks, &at(2)).unwrap();
    assert_eq!(report.disagreements.len(), 1, "{report:?}");
    assert!(report.disagreements[0].contains("task 3 is ticked in README.md"), "{report:?}");
    let state = state(&dir);
    assert_eq!(state["tasks"][0]["status"], "completed", "the folder follows: {state:#}");
    assert_eq!(state["tasks"][1]["status"], "in_progress", "{state:#}");
    assert_eq!(state["tasks"][2]["status"], "pending", "no evidence, no completion");
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    assert!(
        readme.contains("- [x] **3.**"),
        "the person's tick is never silently emptied: {readme}"
    );
    let found = clean(&dir);
    assert!(found.iter().any(|f| f.contains("readme_ahead") && f.contains("task 3")), "{found:?}");
}

#[test]
fn a_box_emptied_by_hand_reopens_the_task_and_the_same_run_does_not_close_it_again() {
    let ws = workspace(true);
    let (dir, mut tasks) = materialised(ws.path());
    done(&mut tasks, 1, "cargo test");
    plan_files().sync(&dir, &tasks, &at(1)).unwrap();
    let readme = std::fs::read_to_string(dir.file("README.md")).unwrap();
    std::fs::write(dir.file("README.md"), readme.replace("- [x] **1.**", "- [ ] **1.**")).unwrap();
    let report = plan_files().sync(&dir, &tasks, &at(2)).unwrap();
    assert!(
        report.disagreements.iter().any(|d| d.contains("task 1's box was emptied")),
        "{report:?}"
    );
    assert_ne!(state(&dir)["tasks"][0]["status"], "completed", "Markdown wins");
    let again = plan_files().sync(&dir, &tasks, &at(3)).unwrap();
    assert!(again.disagreements.iter().any(|d| d.contains("same passing run")), "{again:?}");
    // A new passing run is new proof: the task completes, the box is ticked again.
    tasks[0].gate = Some(GateInput::new("cargo test", 0, "4 passed, 0 failed"));
    let fixed = plan_files().sync(&dir, &tasks, &at(4)).unwrap();
    assert!(fixed.disagreements.is_empty(), "{fixed:?}");
    assert_eq!(state(&dir)["tasks"][0]["status"], "completed");
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn a_pause_blocks_the_task_with_its_reason_and_resuming_unblocks_it() {
    let ws = workspace(true);
    let (dir, tasks) = materialised(ws.path());
    let pause = PauseInput {
        reason: "the executor stopped: no progress".to_owned(),
        needs: "Continue in the chat".to_owned(),
        pause: Pause::Continue,
    };
    assert!(plan_files().pause(&dir, 1, pause.clone(), &at(1)).unwrap());
    assert!(
        !plan_files().pause(&dir, 1, pause, &at(2)).unwrap(),
        "paused already: nothing written"
    );
    let state_now = state(&dir);
    assert_eq!(state_now["status"], "blocked", "{state_now:#}");
    assert_eq!(state_now["blocked"]["task"], 1);
    assert_eq!(state_now["blocked"]["reason"], "the executor stopped: no progress");
    assert_eq!(state_now["tasks"][0]["status"], "blocked");
    let resumed = plan_files()
        .resume(&dir, |pause| *pause == Pause::Continue, "the user pressed Continue", &at(3))
        .unwrap();
    assert_eq!(resumed, vec![1]);
    let state_now = state(&dir);
    assert_eq!(state_now["tasks"][0]["status"], "in_progress", "{state_now:#}");
    assert!(state_now["blocked"].is_null(), "{state_now:#}");
    // The tracker's list syncs on without a reopen (nothing is invalidated by a pause).
    plan_files().sync(&dir, &tasks, &at(4)).unwrap();
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(!progress.contains("reopened"), "{progress}");
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap().trim().to_owned()
}

#[test]
fn a_completed_task_records_head_and_an_outcome_with_the_seeds_fields() {
    let ws = tempfile::tempdir().unwrap();
    git(ws.path(), &["init", "-q", "-b", "main"]);
    git(ws.path(), &["commit", "-q", "--allow-empty", "-m", "start"]);
    let (dir, mut tasks) = materialised(ws.path());
    plan_files()
        .record_gate(&dir, 1, GateInput::new("cargo test", 101, "1 failed"), &at(1))
        .unwrap();
    done(&mut tasks, 1, "cargo test");
    plan_files().sync(&dir, &tasks, &at(2)).unwrap();
    let task = &state(&dir)["tasks"][0];
    let head = git(ws.path(), &["rev-parse", "--short=7", "HEAD"]);
    assert_eq!(task["commit"], head.as_str(), "{task:#}");
    assert_eq!(task["outcome"]["worked"], "task 1 works");
    assert_eq!(task["outcome"]["tried"][0], "`cargo test`");
    assert!(task["outcome"]["failed"][0].as_str().unwrap().contains("exited 101"), "{task:#}");
}

/// Every task finished: 1 and 2 completed on `test -f`, 3 dropped by an amendment.
pub(super) fn finished(ws: &std::path::Path) -> PlanFolder {
    let (dir, tasks) = materialised(ws);
    finish(dir, tasks, 0)
}

/// Finishes the plan of `dir` as [`finished`] does, its protocol points at `at(start + 1…3)`.
pub(super) fn finish(dir: PlanFolder, mut tasks: Vec<TrackedTask>, start: u32) -> PlanFolder {
    done(&mut tasks, 1, "test -f one.txt");
    done(&mut tasks, 2, "test -f two.txt");
    plan_files().sync(&dir, &tasks, &at(start + 1)).unwrap();
    plan_files().amend(&dir, amendment(AmendKind::Drop, 3, None), &at(start + 2)).unwrap();
    tasks[2].status = TrackedStatus::Dropped;
    plan_files().sync(&dir, &tasks, &at(start + 3)).unwrap();
    dir
}

pub(super) fn rerun(task: u32, command: &str, exit_code: i64, evidence: &str) -> Rerun {
    Rerun { task, run: GateInput::new(command, exit_code, evidence), ran: true }
}

#[test]
fn a_finished_plan_finalises_verified_with_its_attestation() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let reruns =
        [rerun(1, "test -f one.txt", 0, "exit 0"), rerun(2, "test -f two.txt", 0, "exit 0")];
    let report = plan_files().finalize(&dir, &reruns, &at(4)).unwrap();
    assert_eq!(report.verdict(), Verdict::Verified, "{:?}", report.finalization.reasons);
    assert!(report.recovered.is_none());
    let attestation = read_json(&dir.file("analysis_results/FINALIZATION.json"));
    assert_eq!(attestation["verdict"], "VERIFIED");
    assert_eq!(attestation["reasons"], serde_json::json!([]));
    assert_eq!(attestation["tasks"][0]["gates"][0]["rerun"]["passes"], true, "{attestation:#}");
    assert_eq!(attestation["tasks"][2]["amendments"][0], 1, "{attestation:#}");
    assert!(!dir.file(".finalizing.json").exists());
    assert_eq!(clean(&dir), Vec::<String>::new());
    let progress = std::fs::read_to_string(dir.file("PROGRESS.md")).unwrap();
    assert!(progress.contains("Finalised: VERIFIED"), "{progress}");
}

#[test]
fn a_gate_that_fails_when_run_again_or_an_open_task_gives_unverified_naming_the_task() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    let reruns = [rerun(1, "test -f one.txt", 1, "exit 1"), rerun(2, "test -f two.txt", 0, "ok")];
    let report = plan_files().finalize(&dir, &reruns, &at(4)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified);
    let reasons = &report.finalization.reasons;
    assert!(
        reasons.iter().any(|r| r.contains("task 1 “Create webhook endpoint”")
            && r.contains("fails when run again")),
        "{reasons:?}"
    );
    let ws = workspace(true);
    let (open, _) = materialised(ws.path());
    let report = plan_files().finalize(&open, &[], &at(1)).unwrap();
    assert_eq!(report.verdict(), Verdict::Unverified);
    assert!(
        report.finalization.reasons.iter().any(|r| r.contains("is in_progress, not finished")),
        "{:?}",
        report.finalization.reasons
    );
}

#[test]
fn an_interrupted_finalisation_is_reported_and_checked_again_from_the_start() {
    let ws = workspace(true);
    let dir = finished(ws.path());
    std::fs::write(dir.file(".finalizing.json"), "{\"candidate_sha256\":\"ab").unwrap();
    let found = clean(&dir);
    assert!(found.iter().any(|f| f.contains("finalisation was interrupted")), "{found:?}");
    let reruns = [rerun(1, "test -f one.txt", 0, "ok"), rerun(2, "test -f two.txt", 0, "ok")];
    let report = plan_files().finalize(&dir, &reruns, &at(4)).unwrap();
    assert!(report.recovered.is_some());
    assert_eq!(report.verdict(), Verdict::Verified, "{:?}", report.finalization.reasons);
    assert_eq!(clean(&dir), Vec::<String>::new());
}

#[test]
fn finished_plans_give_their_outcome_records_newest_first_and_capped() {
    let ws = workspace(true);
    let older = finished(ws.path());
    let open = plan_document("An open plan", &STEPS, crate::PlanApproval::Approved);
    plan_files().materialize(ws.path(), &open, &from_steps(&STEPS), "chat-2", &at(0)).unwrap();
    let records = crate::finished_outcomes(ws.path(), 10_000).text;
    assert!(records.starts_with(&format!("### {} (finished ", older.name())), "{records}");
    assert!(records.contains("- task 1 “"), "{records}");
    assert!(records.contains("worked: task 1 works"), "{records}");
    assert_eq!(records.matches("### ").count(), 1, "the open plan has no place: {records}");
    let later = plan_document("A later plan", &STEPS, crate::PlanApproval::Approved);
    let dir = plan_files().materialize(ws.path(), &later, &from_steps(&STEPS), "chat-3", &at(9));
    let newer = finish(dir.unwrap(), from_steps(&STEPS), 10);
    let records = crate::finished_outcomes(ws.path(), 10_000).text;
    let (first, second) = (records.find(&newer.name()).unwrap(), records.find(&older.name()));
    assert!(first < second.unwrap(), "newest first: {records}");
    let one = records.find("\n\n").unwrap() + 2;
    let capped = crate::finished_outcomes(ws.path(), one).text;
    assert_eq!(capped.matches("### ").count(), 1, "{capped}");
    assert!(capped.ends_with("(1 older finished plan(s) left out to keep this short.)\n"));
    assert_eq!(crate::finished_outcomes(&ws.path().join("nowhere"), 10_000).text, "");
}

#[test]
fn planted_plans_cost_a_bounded_read_and_the_newest_finished_plan_still_counts() {
    use crate::disk::outcomes::{MAX_FOLDERS, MAX_TOTAL_BYTES};
    let ws = workspace(true);
    let real = finished(ws.path());
    let record = std::fs::read_to_string(real.file("state.json")).unwrap();
    // 500 planted folders: most with a 4 MiB state.json (sparse, so nothing to write here),
    // every tenth a real finished plan's record padded to 200 KiB.
    let plans = ws.path().join(".dwp/plans");
    let padded = format!("{record}{}", " ".repeat((200 << 10) - record.len()));
    for n in 0..500 {
        let dir = plans.join(format!("PLAN_planted_{n:03}"));
        std::fs::create_dir(&dir).unwrap();
        let file = std::fs::File::create(dir.join("state.json")).unwrap();
        match n % 10 {
            0 => std::fs::write(dir.join("state.json"), &padded).unwrap(),
            _ => file.set_len(4 << 20).unwrap(),
        }
    }
    let later = plan_document("A later plan", &STEPS, crate::PlanApproval::Approved);
    let dir = plan_files().materialize(ws.path(), &later, &from_steps(&STEPS), "chat-3", &at(9));
    let newest = finish(dir.unwrap(), from_steps(&STEPS), 10);

    let read = crate::finished_outcomes(ws.path(), 10_000);
    assert!(read.bytes_read <= MAX_TOTAL_BYTES, "{} bytes read", read.bytes_read);
    assert!(read.folders_read <= MAX_FOLDERS, "{} folders read", read.folders_read);
    let head = format!("### {} (finished ", newest.name());
    assert!(read.text.starts_with(&head), "the newest plan counts: {}", read.text);
}
