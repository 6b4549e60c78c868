//! Shared fixtures of the `.dwp` tests: a workspace in a temp dir, an approved plan
//! document, a materialised plan folder and small readers.
#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use preflight_engine::dwp::{Author, LockOptions, PlanDir, PlanFiles};
use preflight_engine::planner::{
    build_plan_document, Approval, Plan, PlanDocument, PlanFacts, PlanStep, SandboxPolicy,
    SandboxSpec,
};
use preflight_engine::tasks::{Gate, TaskList};
use serde_json::Value;
use tempfile::TempDir;

pub const CHAT: &str = "chat-7f3a";

/// A timestamp `minute` minutes into the test day.
pub fn at(minute: u32) -> String {
    format!("2026-06-09T{:02}:{:02}:00Z", 14 + minute / 60, minute % 60)
}

/// A workspace folder; a git repository when `git` (a `.git` folder is what is looked for).
pub fn workspace(git: bool) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    if git {
        std::fs::create_dir(dir.path().join(".git")).unwrap();
    }
    dir
}

pub fn plan_document(title: &str, steps: &[&str], approval: Approval) -> PlanDocument {
    let plan = Plan {
        title: title.to_owned(),
        aim: "Accept signed webhooks and retry failed deliveries.".to_owned(),
        steps: steps
            .iter()
            .map(|action| PlanStep {
                action: (*action).to_owned(),
                expected: format!("{action} works"),
            })
            .collect(),
        libraries: vec![],
        sandbox: SandboxSpec { policy: SandboxPolicy::Create, notes: String::new() },
    };
    let facts = PlanFacts {
        workspace: None,
        sandbox_exists: false,
        context7_available: false,
        files: vec![],
        created_at: at(0),
        revision: 1,
        approval,
    };
    build_plan_document(&plan, "", &facts)
}

pub fn plan_files() -> PlanFiles {
    PlanFiles::new(Author::preflight(Some("test-model"))).with_lock(LockOptions {
        wait: Duration::from_secs(30),
        stale_after: Duration::from_secs(120),
    })
}

pub const STEPS: [&str; 3] =
    ["Create webhook endpoint", "Add retry queue", "Document the webhooks"];

/// An approved three-task plan materialised in `workspace`, with the tracker's list.
pub fn materialised(workspace: &Path) -> (PlanDir, TaskList) {
    let document = plan_document("Add payment webhook handling", &STEPS, Approval::Approved);
    let tasks = TaskList::from_steps(STEPS).unwrap();
    let dir = plan_files().materialize(workspace, &document, &tasks, CHAT, &at(0)).unwrap();
    (dir, tasks)
}

pub fn passing(command: &str) -> Gate {
    Gate { command: command.to_owned(), exit_code: 0, evidence: "42 passed, 0 failed".to_owned() }
}

pub fn read_json(path: &Path) -> Value {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}\n{text}", path.display()))
}

/// The keys of a JSON object, in file order.
pub fn keys(value: &Value) -> Vec<&str> {
    value.as_object().expect("an object").keys().map(String::as_str).collect()
}

/// Whether `value` is an RFC 3339 timestamp string.
pub fn is_timestamp(value: &Value) -> bool {
    let format = time::format_description::well_known::Rfc3339;
    value.as_str().is_some_and(|text| time::OffsetDateTime::parse(text, &format).is_ok())
}
