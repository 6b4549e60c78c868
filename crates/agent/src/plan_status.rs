//! The built-in `plan_status` tool (DESIGN §14, seed 001): read-only, offered to the planner
//! and the executor of a plan-mode chat. It answers where the chat's plan stands — the mode,
//! the aim, the task list's progress and the changes waiting for the user — from the store,
//! so a model that lost track after a compaction or a long run can ask instead of guessing.

use std::sync::Arc;

use preflight_protocol::chat::Phase;
use preflight_protocol::planner::Approval;
use preflight_protocol::tasks::{ChangeStatus, PlanChange, TaskList, TaskStatus};
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_store::{ChatState, Store};
use serde::Serialize;
use serde_json::Value;

use super::{Tool, ToolContext};

pub const PLAN_STATUS: &str = "plan_status";

pub struct PlanStatusTool {
    store: Arc<Store>,
}

impl PlanStatusTool {
    pub fn new(store: Arc<Store>) -> PlanStatusTool {
        PlanStatusTool { store }
    }
}

/// The tool's answer: `{mode, aim, progress, waiting_changes}` of DESIGN §14.
#[derive(Debug, Serialize, PartialEq)]
pub struct PlanStatus {
    pub mode: &'static str,
    pub aim: Option<String>,
    pub progress: Progress,
    pub waiting_changes: Vec<String>,
}

#[derive(Debug, Serialize, PartialEq)]
pub struct Progress {
    pub done: usize,
    pub dropped: usize,
    pub left: usize,
    /// The active task, as "3 Write the handler".
    pub active: Option<String>,
}

/// The status of a chat in `state`, with its task list and its plan changes.
pub fn plan_status(state: &ChatState, list: &TaskList, changes: &[PlanChange]) -> PlanStatus {
    let approved = state
        .plan
        .as_ref()
        .is_some_and(|plan| matches!(plan.approval, Approval::Approved | Approval::PreApproved));
    let mode = match state.phase {
        _ if state.completion.is_some() => "completed",
        Phase::Planning | Phase::Questions => "planning",
        Phase::AwaitingApproval => "awaiting_approval",
        Phase::Executing => "executing",
        Phase::Idle if approved => "executing",
        Phase::Idle => "planning",
    };
    let count = |status: TaskStatus| list.tasks.iter().filter(|t| t.status == status).count();
    let progress = Progress {
        done: count(TaskStatus::Done),
        dropped: count(TaskStatus::Dropped),
        left: list.open_ids().len(),
        active: list.active().map(|task| format!("{} {}", task.id, task.title)),
    };
    let waiting_changes = changes
        .iter()
        .filter(|change| change.status == ChangeStatus::Pending)
        .map(|change| format!("{}: {}", change.id, change.describe()))
        .collect();
    let aim = state.plan.as_ref().map(|plan| plan.aim.clone()).filter(|aim| !aim.is_empty());
    PlanStatus { mode, aim, progress, waiting_changes }
}

#[async_trait::async_trait]
impl Tool for PlanStatusTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: PLAN_STATUS.to_owned(),
            description: "Where this chat's plan stands: mode (planning, awaiting_approval, \
                          executing or completed), the plan's aim, the task list's progress \
                          (done, dropped, left, the active task) and the plan changes waiting \
                          for the user. Read-only; takes no arguments."
                .to_owned(),
            input_schema: serde_json::json!({ "type": "object", "properties": {} }),
        }
    }

    async fn call(&self, _arguments: Value, context: &ToolContext<'_>) -> ToolOutput {
        let chat_id = context.chat_id;
        let read = self
            .store
            .read(|tx| Ok((tx.state(chat_id)?, tx.task_list(chat_id)?, tx.plan_changes(chat_id)?)));
        match read {
            Ok((state, list, changes)) => {
                let status = plan_status(&state, &list, &changes);
                ToolOutput::ok(serde_json::to_string_pretty(&status).unwrap_or_default())
            }
            Err(error) => {
                ToolOutput::error(format!("the plan's status could not be read: {error}"))
            }
        }
    }
}
