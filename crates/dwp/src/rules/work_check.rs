//! The folder against the work it follows (issue 49): when the chat that made a plan folder
//! can be read (the command line finds it in Preflight's data folder by the manifest's
//! origin), `preflight dwp verify` compares the two. README.md and `state.json` agreeing with
//! each other is not enough: after a restore or *Clear list* that never reached the folder,
//! both would still claim work that is undone. Pure.

use super::documents::{PlanState, Status};
use super::findings::{Finding, FindingKind};
use super::input::{TrackedStatus, TrackedTask};

/// What the chat holds of the plan's work, read from its store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChatWork {
    /// The chat's task list, while the plan is being carried out.
    Listed(Vec<TrackedTask>),
    /// The list is closed: the chat recorded the plan's completion, with this verdict.
    Completed { verdict: Option<String> },
    /// No list and no completion (cleared, or not started): nothing to hold the folder to.
    Nothing,
}

/// Where `state` claims more (or other) than the chat's work: one finding each.
pub fn work_findings(state: &PlanState, work: &ChatWork) -> Vec<Finding> {
    if state.superseded.is_some() {
        return Vec::new();
    }
    match work {
        ChatWork::Listed(tasks) => state
            .tasks
            .iter()
            .filter_map(|entry| {
                let listed = tasks.iter().find(|task| task.id == entry.id);
                task_finding(entry.id, entry.status, listed.map(|task| task.status))
            })
            .collect(),
        ChatWork::Completed { verdict } => completion_findings(state, verdict.as_deref()),
        ChatWork::Nothing => Vec::new(),
    }
}

fn task_finding(id: u32, folder: Status, chat: Option<TrackedStatus>) -> Option<Finding> {
    let said = |message: String| Some(Finding::new(FindingKind::Work, Some(id), message));
    let Some(chat) = chat else {
        return said("state.json has it, but the chat's task list does not".to_owned());
    };
    let chat_word = match chat {
        TrackedStatus::Pending => "pending",
        TrackedStatus::Active => "active",
        TrackedStatus::Done => "done",
        TrackedStatus::Dropped => "dropped",
    };
    let disagrees = match chat {
        TrackedStatus::Pending | TrackedStatus::Active => {
            matches!(folder, Status::Completed | Status::Skipped)
        }
        TrackedStatus::Done => folder != Status::Completed,
        TrackedStatus::Dropped => folder == Status::Completed,
    };
    disagrees.then_some(()).and_then(|()| {
        said(format!(
            "the chat's task list has it {chat_word}, but state.json says {}: the folder did not follow the work",
            folder.as_str()
        ))
    })
}

fn completion_findings(state: &PlanState, verdict: Option<&str>) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !state.all_done() {
        let message = format!(
            "the chat recorded the plan's completion, but state.json has tasks {} open",
            state.open_task_list()
        );
        findings.push(Finding::new(FindingKind::Work, None, message));
    }
    let held = state.verification.as_ref().map(|held| held.verdict.as_str());
    if let Some(verdict) = verdict.filter(|verdict| Some(*verdict) != held) {
        let message = format!(
            "the chat's completion says {verdict}, but state.json's verdict is {}",
            held.unwrap_or("none")
        );
        findings.push(Finding::new(FindingKind::Work, None, message));
    }
    findings
}
