//! Shared fixtures of the plan-folder tests: a workspace in a temp dir, an approved plan,
//! a materialised plan folder, the tracker's list as a sync reads it, and small readers.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;
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
            })
            .collect(),
        libraries: vec![],
        approval,
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
