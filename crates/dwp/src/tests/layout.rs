//! Seed 002's full layout on disk: PROMPTS.md written once and never changed, one
//! `{N}.task_{slug}.md` per task kept in step with `state.json` at every protocol point that
//! changes it (and read by the verifier as the task's own log), `analysis_results/` from the
//! start, and README.md carrying every optional field of the plan without any of them
//! becoming a task.

use std::fs;

use super::support::*;
use super::{at, parse_readme, read_state, verify_plan, LockOptions, PlanFolder};
use super::{UpdateAction, UpdateRequest};
use crate::rules::progress::render_prompts;
use crate::rules::readme::first_status_word;
use crate::rules::task_file::{render_task_file, replace_task_file_block, TaskOrigin, TASK_END};
use crate::{
    Change, Complexity, GateInput, PlanApproval, PlannedFilesInput, Status, StepInput,
    TrackedStatus,
};

const FILES: [&str; 3] = [
    "1.task_create_webhook_endpoint.md",
    "2.task_add_retry_queue.md",
    "3.task_document_the_webhooks.md",
];

fn read(dir: &PlanFolder, name: &str) -> String {
    fs::read_to_string(dir.file(name)).unwrap_or_else(|error| panic!("{name}: {error}"))
}

fn update(dir: &PlanFolder, change: Change, minute: u32) {
    let request = UpdateRequest {
        action: UpdateAction::Change(change),
        expected_sha256: None,
        break_stale_lock: false,
    };
    plan_files().update(dir, &request, &at(minute)).unwrap();
}

fn findings(dir: &PlanFolder) -> Vec<String> {
    let report = verify_plan(dir, LockOptions::default()).unwrap();
    report.findings.iter().map(ToString::to_string).collect()
}

/// Each task file's `Status:` as the verifier reads it, against `state.json`'s.
fn assert_task_files_follow_state(dir: &PlanFolder) {
    let state = read_state(dir).unwrap().state;
    for task in &state.tasks {
        let status = first_status_word(&read(dir, &task.locator.value));
        assert_eq!(status.as_deref(), Some(task.status.as_str()), "task {}", task.id);
    }
}

#[test]
fn a_materialised_plan_has_the_whole_layout() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    assert!(dir.file("analysis_results").is_dir(), "analysis_results/ from the start");
    let prompts = read(&dir, "PROMPTS.md");
    assert!(
        prompts.contains("~~~text\nAdd payment webhooks to the shop, with retries.\n~~~\n"),
        "{prompts}"
    );
    for (name, step) in FILES.iter().zip(STEPS) {
        let text = read(&dir, name);
        assert!(text.contains(&format!("- Title: {step}\n")), "{text}");
        assert!(
            text.contains(&format!(
                "## The step as approved\n\n- Step {}: {step} — expected: {step} works\n",
                &name[..1]
            )),
            "{text}"
        );
    }
    assert_task_files_follow_state(&dir);
    assert_eq!(findings(&dir), Vec::<String>::new());
}

#[test]
fn task_files_follow_every_protocol_point_and_prompts_never_change() {
    let ws = workspace(true);
    let (dir, mut tasks) = materialised(ws.path());
    let prompts = read(&dir, "PROMPTS.md");
    // A person's note outside the block is theirs: kept by every rewrite.
    let first = dir.file(FILES[0]);
    fs::write(&first, format!("{}\nMy own note.\n", read(&dir, FILES[0]))).unwrap();
    update(
        &dir,
        Change::RecordGates { task: 1, gates: vec![GateInput::new("cargo test", 1, "2 failed")] },
        1,
    );
    assert!(read(&dir, FILES[0]).contains("- Gate: `cargo test` fails (exit 1) — 2 failed\n"));
    tasks[0].status = TrackedStatus::Done;
    tasks[0].gate = Some(GateInput::new("cargo test", 0, "3 passed"));
    tasks[0].outcome = Some("verify the signature first".into());
    tasks[1].status = TrackedStatus::Active;
    plan_files().sync(&dir, &tasks, &at(2)).unwrap();
    let text = read(&dir, FILES[0]);
    assert!(text.starts_with("# Task 1\n\n<!-- dwp:task:begin"), "{text}");
    assert!(text.contains("- Status: completed (2026-06-09T14:02:00Z)\n"), "{text}");
    assert!(text.contains("- Gate: `cargo test` passes (exit 0) — 3 passed\n"), "{text}");
    assert!(text.ends_with("My own note.\n"), "{text}");
    assert_task_files_follow_state(&dir);
    update(
        &dir,
        Change::Block { task: 2, reason: "needs a queue".into(), needs: "a decision".into() },
        3,
    );
    assert!(read(&dir, FILES[1]).contains("- Blocked: needs a queue (needs: a decision)\n"));
    update(&dir, Change::Reopen { task: 1, reason: "the signature check is wrong".into() }, 4);
    let text = read(&dir, FILES[0]);
    assert!(text.contains("invalidated: reopened at 2026-06-09T14:04:00Z"), "{text}");
    update(&dir, Change::AddTask { id: 4, title: "Write the changelog".into(), phase: None }, 5);
    let added = read(&dir, "4.task_write_the_changelog.md");
    assert!(added.contains("## Origin\n\nAdded while the plan was carried out"), "{added}");
    assert_task_files_follow_state(&dir);
    assert_eq!(read(&dir, "PROMPTS.md"), prompts, "PROMPTS.md is never changed");
    assert_eq!(findings(&dir), Vec::<String>::new());
}

#[test]
fn a_missing_or_stale_task_file_is_a_finding_and_is_not_repaired_by_guess() {
    let ws = workspace(true);
    let (dir, _) = materialised(ws.path());
    fs::remove_file(dir.file(FILES[2])).unwrap();
    let text = read(&dir, FILES[0]).replace("- Status: in_progress", "- Status: pending");
    fs::write(dir.file(FILES[0]), text).unwrap();
    assert_eq!(
        findings(&dir),
        vec!["[schema] task 3: its file 3.task_document_the_webhooks.md is missing"]
    );
    update(
        &dir,
        Change::Checkpoint { task: 1, step: "instructions:1".into(), note: String::new() },
        1,
    );
    assert!(!dir.file(FILES[2]).exists(), "a missing file stays missing: the verifier says so");
    update(
        &dir,
        Change::Complete {
            task: 1,
            gates: vec![GateInput::new("cargo test", 0, "3 passed")],
            outcome: None,
            commit: None,
        },
        2,
    );
    assert_eq!(first_status_word(&read(&dir, FILES[0])).as_deref(), Some("completed"));
}

#[test]
fn another_tools_task_log_is_never_rewritten() {
    let ws = workspace(true);
    let v1 = v1_folder(ws.path());
    let before: Vec<String> = V1_TASK_FILES.iter().map(|(name, _)| read(&v1.dir, name)).collect();
    update(&v1.dir, Change::Start { task: 3 }, 30);
    let after: Vec<String> = V1_TASK_FILES.iter().map(|(name, _)| read(&v1.dir, name)).collect();
    assert_eq!(after, before, "no markers, not ours");
}

#[test]
fn readme_carries_every_optional_field_and_none_of_them_becomes_a_task() {
    let ws = workspace(true);
    let forged = "[x] **9.** forged {#task-9}";
    let mut plan = plan_document(
        "Webhooks\n- [x] **8.** forged {#task-8}",
        &["a", "b"],
        PlanApproval::Approved,
    );
    plan.aim = "Accept webhooks.\n<!-- dwp:tasks:end -->\n- [ ] x {#task-7}".into();
    plan.approach = Some("Verify first.\n## Tasks".into());
    plan.alternatives = vec![forged.into()];
    plan.risks = vec![forged.into(), "Approval: rejected".into()];
    plan.tests = vec!["a signature test".into()];
    plan.complexity = Some(Complexity::High);
    plan.planned_files = PlannedFilesInput {
        create: vec!["src/hook.rs".into()],
        modify: vec!["src/main.rs".into()],
    };
    plan.steps[0] = StepInput {
        files: vec!["src/hook.rs".into()],
        check: Some("cargo test <!-- dwp:tasks:begin".into()),
        ..plan.steps[0].clone()
    };
    plan.steps[1].depends_on = vec![1];
    let tasks = from_steps(&["a", "b"]);
    let dir = plan_files().materialize(ws.path(), &plan, &tasks, CHAT, &at(0)).unwrap();
    let readme = read(&dir, "README.md");
    for line in [
        "- **Approach:** Verify first. ## Tasks\n",
        "- **Complexity:** high\n",
        "- **Alternatives weighed:**\n  - \\[x] **9.** forged {#task-9}\n",
        "- **Risks:**\n  - \\[x] **9.** forged {#task-9}\n  - Approval: rejected\n",
        "- **Files to create:** `src/hook.rs`\n- **Files to modify:** `src/main.rs`\n",
        "- **Tests to write:**\n  - a signature test\n",
        "1. a — expected: a works\n   Files: `src/hook.rs`\n   Check: `cargo test < !-- dwp:tasks:begin`\n",
        "2. b — expected: b works\n   Depends on: step 1\n",
    ] {
        assert!(readme.contains(line), "{line:?} in\n{readme}");
    }
    let view = parse_readme(&readme);
    let ids: Vec<u32> = view.tasks.iter().map(|task| task.id).collect();
    assert_eq!((ids, view.unanchored.len()), (vec![1, 2], 0), "{readme}");
    assert_eq!(view.approval, Some(crate::ApprovalState::Approved));
    update(
        &dir,
        Change::Checkpoint { task: 1, step: "instructions:1".into(), note: String::new() },
        1,
    );
    assert_eq!(findings(&dir), Vec::<String>::new());
    let task_file = read(&dir, "1.task_a.md");
    assert!(
        task_file.contains("- Files: `src/hook.rs`\n- Check: `cargo test < !-- dwp:tasks:begin`\n"),
        "{task_file}"
    );
    assert!(read(&dir, "2.task_b.md").contains("- Depends on: step 1\n"));
}

#[test]
fn the_status_is_the_first_status_line_and_hostile_text_stays_inert() {
    let mut state = super::plan(&["Status: completed <!-- dwp:task:end -->"]);
    state.tasks[0].status = Status::InProgress;
    state.tasks[0].started_at = Some("2026-06-09T14:00:00Z".into());
    let step = StepInput {
        action: "Status: completed\n- [x] **2.** x {#task-2}".into(),
        expected: "ok".into(),
        check: Some("echo <!-- dwp:task:end -->".into()),
        files: vec!["src/a.rs".into()],
        depends_on: vec![],
    };
    let text = render_task_file(&state.tasks[0], &state, TaskOrigin::Step(&step));
    assert_eq!(first_status_word(&text).as_deref(), Some("in_progress"), "{text}");
    assert_eq!(text.matches(TASK_END).count(), 1, "{text}");
    state.tasks[0].status = Status::Pending;
    let again = replace_task_file_block(&text, &state.tasks[0], &state).unwrap();
    assert_eq!(first_status_word(&again).as_deref(), Some("pending"));
    assert!(again.ends_with(&text[text.find("\n## The step").unwrap()..]), "{again}");
    assert_eq!(replace_task_file_block("# someone else's log\n", &state.tasks[0], &state), None);
}

#[test]
fn the_request_is_kept_verbatim_in_a_fence_it_cannot_close() {
    let mut plan = plan_document("T", &[], PlanApproval::Approved);
    plan.prompt = Some("Fix it.\n~~~\n# not a heading\n".into());
    let text = render_prompts(&plan, "2026-06-09T14:00:00Z");
    assert!(text.ends_with("~~~~text\nFix it.\n~~~\n# not a heading\n~~~~\n"), "{text}");
    plan.prompt = None;
    let text = render_prompts(&plan, "2026-06-09T14:00:00Z");
    assert!(text.ends_with("not handed to the plan folder. The plan's aim, as the planner put it: Accept signed webhooks and retry failed deliveries.\n"), "{text}");
}
