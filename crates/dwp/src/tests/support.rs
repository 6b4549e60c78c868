//! Shared fixtures of the plan-folder tests: a workspace in a temp dir, an approved plan,
//! a materialised plan folder, a v1 plan folder another tool wrote, the tracker's list as a
//! sync reads it, and small readers.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};
use tempfile::TempDir;

use super::at;
use crate::{
    Author, LockOptions, PlanApproval, PlanFolder, PlanFolderWriter, PlanInput, StepInput,
    TrackedStatus, TrackedTask,
};

pub(crate) const CHAT: &str = "chat-7f3a";

/// A workspace folder; a git repository when `git` (a `.git` folder is what is looked for).
pub(crate) fn workspace(git: bool) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    if git {
        std::fs::create_dir(dir.path().join(".git")).unwrap();
    }
    dir
}

pub(crate) fn plan_document(title: &str, steps: &[&str], approval: PlanApproval) -> PlanInput {
    PlanInput {
        title: title.to_owned(),
        aim: "Accept signed webhooks and retry failed deliveries.".to_owned(),
        steps: steps
            .iter()
            .map(|action| StepInput {
                action: (*action).to_owned(),
                expected: format!("{action} works"),
                check: None,
                files: vec![],
                depends_on: vec![],
            })
            .collect(),
        libraries: vec![],
        approval,
        risks: vec![],
        approach: None,
        alternatives: vec![],
        planned_files: Default::default(),
        tests: vec![],
        complexity: None,
        prompt: Some("Add payment webhooks to the shop, with retries.".to_owned()),
    }
}

/// The list an approved plan starts (the tracker's `from_steps`): ids 1…n, task 1 active.
pub(crate) fn from_steps(steps: &[&str]) -> Vec<TrackedTask> {
    (1..)
        .zip(steps)
        .map(|(id, title)| TrackedTask {
            id,
            title: (*title).to_owned(),
            phase: None,
            status: if id == 1 { TrackedStatus::Active } else { TrackedStatus::Pending },
            outcome: None,
            gate: None,
            drop_settled: Default::default(),
        })
        .collect()
}

pub(crate) fn plan_files() -> PlanFolderWriter {
    PlanFolderWriter::new(Author::preflight(Some("test-model"))).with_lock(LockOptions {
        wait: Duration::from_secs(30),
        stale_after: Duration::from_secs(120),
    })
}

pub(crate) const STEPS: [&str; 3] =
    ["Create webhook endpoint", "Add retry queue", "Document the webhooks"];

/// An approved three-task plan materialised in `workspace`, with the tracker's list.
pub(crate) fn materialised(workspace: &Path) -> (PlanFolder, Vec<TrackedTask>) {
    let document = plan_document("Add payment webhook handling", &STEPS, PlanApproval::Approved);
    let tasks = from_steps(&STEPS);
    let dir = plan_files().materialize(workspace, &document, &tasks, CHAT, &at(0)).unwrap();
    (dir, tasks)
}

pub(crate) fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}\n{text}", path.display()))
}

/// The keys of a JSON object, in file order.
pub(crate) fn keys(value: &Value) -> Vec<&str> {
    value.as_object().expect("an object").keys().map(String::as_str).collect()
}

/// Whether `value` is an RFC 3339 timestamp string.
pub(crate) fn is_timestamp(value: &Value) -> bool {
    let format = time::format_description::well_known::Rfc3339;
    value.as_str().is_some_and(|text| time::OffsetDateTime::parse(text, &format).is_ok())
}

/// A v1 plan folder as it was written, with the bytes of its two JSON documents.
pub(crate) struct V1Folder {
    pub(crate) dir: PlanFolder,
    pub(crate) manifest: Vec<u8>,
    pub(crate) state: Vec<u8>,
}

/// The task files of the v1 plan and what their logs say.
pub(crate) const V1_TASK_FILES: [(&str, &str); 3] = [
    ("1.task_webhook_endpoint.md", "completed"),
    ("2.task_retry_queue.md", "in_progress"),
    ("3.task_document_webhooks.md", "pending"),
];

/// A v1 plan folder as a DWP 1.2 tool left it in `workspace`: each task in a file of its own
/// (task 1 completed with its gate, task 2 in progress), `manifest.json` and `state.json` on
/// the v1 schemas, README.md with the task block Preflight reads and an Approval line.
pub(crate) fn v1_folder(workspace: &Path) -> V1Folder {
    let path = workspace.join(".dwp/plans/PLAN_payment_webhooks");
    std::fs::create_dir_all(&path).unwrap();
    let write = |name: &str, bytes: &[u8]| std::fs::write(path.join(name), bytes).unwrap();
    let pretty = |value: Value| format!("{value:#}\n").into_bytes();
    let (manifest, state) = (pretty(v1_manifest()), pretty(v1_state()));
    write("manifest.json", &manifest);
    write("state.json", &state);
    write("README.md", V1_README.as_bytes());
    write("PROGRESS.md", V1_PROGRESS.as_bytes());
    for (file, status) in V1_TASK_FILES {
        write(file, format!("# {file}\n\n**Status:** {status}\n").as_bytes());
    }
    V1Folder { dir: PlanFolder::open(path).unwrap(), manifest, state }
}

pub(crate) const V1_PROGRESS: &str = "# Progress\n\n- 2026-06-09T14:00:00Z — Plan created.\n";

const V1_README: &str = "# Add payment webhook handling

**Approval:** approved — 2026-06-09T14:00:00Z

<!-- dwp:tasks:begin (Preflight rewrites this block at each protocol point) -->
- [x] **1.** Create webhook endpoint {#task-1}
  - Status: completed
- [ ] **2.** Add retry queue {#task-2}
  - Status: in_progress
- [ ] **3.** Document the webhooks {#task-3}
  - Status: pending
<!-- dwp:tasks:end -->
";

fn v1_manifest() -> Value {
    json!({
        "schema": "https://deepworkplan.com/schema/plan-manifest/v1.json",
        "spec_version": "1.2.0",
        "name": "PLAN_payment_webhooks",
        "title": "Add payment webhook handling",
        "archetype": "individual",
        "rigor": "standard",
        "created_at": at(0),
        "created_by": {"agent": "claude-code", "model": "claude-fable-5"},
        "tags": ["backend", "payments"],
        "task_count": 3,
        "parent_plan": null
    })
}

fn v1_state() -> Value {
    let task = |id: usize, title: &str, status: &str| json!({"id": id, "file": V1_TASK_FILES[id - 1].0, "title": title, "status": status});
    let mut tasks = [
        task(1, "Create webhook endpoint", "completed"),
        task(2, "Add retry queue", "in_progress"),
        task(3, "Document the webhooks", "pending"),
    ];
    tasks[0]["started_at"] = json!(at(10));
    tasks[0]["completed_at"] = json!(at(20));
    tasks[0]["commit"] = json!("a1b2c3d");
    tasks[0]["gates"] = json!([{"command": "pnpm run test", "passes": true, "exit_code": 0,
        "last_run": at(19), "evidence": "42 passed, 0 failed"}]);
    tasks[0]["outcome"] =
        json!({"tried": [], "failed": [], "worked": "verify the signature first"});
    tasks[1]["started_at"] = json!(at(21));
    tasks[1]["gates"] = json!([]);
    tasks[2]["gates"] = json!([]);
    json!({
        "schema": "https://deepworkplan.com/schema/plan-state/v1.json",
        "plan": "PLAN_payment_webhooks",
        "updated_at": at(22),
        "updated_by": {"agent": "claude-code", "model": "claude-fable-5"},
        "status": "in_progress",
        "completed_count": 1,
        "task_count": 3,
        "tasks": tasks,
        "checkpoint": {"task": 2, "step": "instructions:1", "at": at(22), "note": "table sketched"},
        "blocked": null
    })
}

/// PROGRESS.md's lines that record a migration from v1.
pub(crate) fn migration_lines(dir: &Path) -> Vec<String> {
    let progress = std::fs::read_to_string(dir.join("PROGRESS.md")).unwrap();
    let lines = progress.lines().filter(|line| line.contains("migrated from DWP schema v1"));
    lines.map(str::to_owned).collect()
}
