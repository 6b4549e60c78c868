//! The built-in `turn_plan` tool: applies one operation to the chat's task list through the
//! tracker, stores the whole new list, and sends a `plan` event with it (DESIGN §5).

use std::sync::Arc;

use preflight_dwp::{check_done, GateInput, PlanDir, PlanFiles, TrackedTask};
use serde_json::Value;

use super::{Tool, ToolContext};
use crate::events::Event;
use crate::now_rfc3339;
use crate::store::{Store, StoreError};
use crate::tasks::{
    parameters_schema, tool_description, Operation, TaskList, TrackerError, TOOL_NAME,
};
use crate::tool::{ToolOutput, ToolSpec};

pub struct TurnPlanTool {
    store: Arc<Store>,
    /// The chat's plan folder, when the chat writes `.dwp` files (DESIGN §6).
    plan_files: Option<PlanFilesLink>,
}

/// Where a `.dwp` chat's task list is mirrored: every change becomes a protocol point, and
/// a `done` without a passing gate is refused.
#[derive(Debug, Clone)]
pub struct PlanFilesLink {
    pub files: PlanFiles,
    pub dir: PlanDir,
}

impl TurnPlanTool {
    pub fn new(store: Arc<Store>) -> TurnPlanTool {
        TurnPlanTool { store, plan_files: None }
    }

    /// The tool of a chat that writes its plan into the workspace.
    pub fn with_plan_files(store: Arc<Store>, link: PlanFilesLink) -> TurnPlanTool {
        TurnPlanTool { store, plan_files: Some(link) }
    }

    /// The `.dwp` rules before an operation applies: a refusal carries the plan as it is.
    /// A refused `done` still records its failing gate run (every run is a protocol point).
    async fn check_plan_files(
        &self,
        link: &PlanFilesLink,
        chat_id: &str,
        arguments: &Value,
    ) -> Result<(), ToolOutput> {
        let Ok(operation) = Operation::from_value(arguments) else { return Ok(()) };
        let current =
            self.store.task_list(chat_id).map_err(|error| ToolOutput::error(error.to_string()))?;
        let Err(refusal) = check_turn_plan_allowed(&operation, &current) else { return Ok(()) };
        if let Operation::Done { id, gate: Some(gate), .. } = &operation {
            let (link, id, gate) = (link.clone(), *id, gate.clone());
            let recorded = tokio::task::spawn_blocking(move || {
                link.files.record_gate(&link.dir, id, GateInput::from(&gate), &now_rfc3339())
            })
            .await;
            if let Ok(Err(error)) = recorded {
                tracing::warn!(%chat_id, %error, "the failing gate run could not be recorded");
            }
        }
        Err(ToolOutput::error(format!("{refusal}\n\n{}", current.render())))
    }

    /// Mirrors the saved list into the plan folder; a failure is logged, never lost work.
    async fn sync_plan_files(link: &PlanFilesLink, chat_id: &str, next: &TaskList) {
        let (link, next): (_, Vec<TrackedTask>) = (link.clone(), next.into());
        match tokio::task::spawn_blocking(move || link.files.sync(&link.dir, &next, &now_rfc3339()))
            .await
        {
            Ok(Ok(report)) => {
                for refused in report.refused {
                    tracing::warn!(%chat_id, %refused, "the plan folder refused a change");
                }
            }
            Ok(Err(error)) => {
                tracing::warn!(%chat_id, %error, "the plan folder could not be updated")
            }
            Err(error) => tracing::warn!(%chat_id, %error, "the plan folder update did not finish"),
        }
    }

    /// Reads, applies and saves in one transaction: a refused operation writes nothing.
    fn apply(
        &self,
        chat_id: &str,
        arguments: &Value,
    ) -> Result<Result<TaskList, (TrackerError, TaskList)>, StoreError> {
        self.store.write(|tx| {
            let current = tx.task_list(chat_id)?;
            match current.apply_tool_call(arguments) {
                Ok(next) => {
                    tx.save_task_list(chat_id, &next)?;
                    Ok(Ok(next))
                }
                Err(refusal) => Ok(Err((refusal, current))),
            }
        })
    }
}

#[async_trait::async_trait]
impl Tool for TurnPlanTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: TOOL_NAME.to_owned(),
            description: tool_description(),
            input_schema: parameters_schema(),
        }
    }

    /// The plan as it now stands; a refusal comes with the plan as it still is.
    async fn call(&self, arguments: Value, context: &ToolContext<'_>) -> ToolOutput {
        if let Some(link) = &self.plan_files {
            if let Err(refused) = self.check_plan_files(link, context.chat_id, &arguments).await {
                return refused;
            }
        }
        match self.apply(context.chat_id, &arguments) {
            Ok(Ok(next)) => {
                if let Some(link) = &self.plan_files {
                    TurnPlanTool::sync_plan_files(link, context.chat_id, &next).await;
                }
                context.events.emit(Event::TaskList { tasks: next.tasks.clone() });
                ToolOutput::ok(next.render())
            }
            Ok(Err((refusal, current))) => {
                ToolOutput::error(format!("{refusal}\n\n{}", current.render()))
            }
            Err(error) => ToolOutput::error(format!("the plan could not be saved: {error}")),
        }
    }
}

/// In a chat whose plan is saved as files: `done` needs a passing gate (the `.dwp` rule),
/// and `init` may not replace a list that has tasks (the files keep the approved plan,
/// keyed by id). The error is the text the model reads.
fn check_turn_plan_allowed(op: &Operation, current: &TaskList) -> Result<(), String> {
    if let Operation::Init { .. } = op {
        if !current.is_empty() {
            return Err(
                "this plan is saved in .dwp/plans and cannot be replaced: change it with add \
                        (new tasks) and drop (tasks that no longer apply), not init"
                    .to_owned(),
            );
        }
    }
    check_done_allowed(op)
}

/// `done` with the `.dwp` gate rule; every other operation is allowed.
fn check_done_allowed(op: &Operation) -> Result<(), String> {
    let Operation::Done { id, gate, .. } = op else {
        return Ok(());
    };
    check_done(*id, gate.as_ref().map(GateInput::from)).map_err(|refusal| refusal.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tasks::{Gate, NewTask};

    #[test]
    fn init_may_not_replace_a_saved_plan_and_done_needs_its_gate() {
        let empty = TaskList::empty();
        let list = TaskList::from_steps(["a"]).unwrap();
        let init = Operation::Init { tasks: vec![NewTask::new("b", None)] };
        assert_eq!(check_turn_plan_allowed(&init, &empty), Ok(()));
        assert!(check_turn_plan_allowed(&init, &list).unwrap_err().contains("not init"));
        let add = Operation::Add { tasks: vec![NewTask::new("b", None)] };
        assert_eq!(check_turn_plan_allowed(&add, &list), Ok(()));
        let done = Operation::Done { id: 1, outcome: None, gate: None };
        assert!(check_turn_plan_allowed(&done, &list)
            .unwrap_err()
            .contains("needs a passing check"));
    }

    #[test]
    fn done_needs_a_passing_gate_with_real_evidence() {
        let done = |gate: Option<Gate>| Operation::Done { id: 2, outcome: None, gate };
        let gate = |exit_code, evidence: &str| {
            Some(Gate { command: "cargo test".into(), exit_code, evidence: evidence.into() })
        };
        assert_eq!(check_done_allowed(&Operation::Start { id: 2 }), Ok(()));
        assert_eq!(check_done_allowed(&Operation::Drop { id: 2, outcome: None }), Ok(()));
        assert_eq!(check_done_allowed(&done(gate(0, "12 passed"))), Ok(()));
        for (op, says) in [
            (done(None), "needs a passing check"),
            (done(gate(101, "1 failed")), "exit code 101"),
            (done(gate(0, "")), "has no evidence"),
            (done(gate(0, "never executed")), "not carried out"),
        ] {
            let refusal = check_done_allowed(&op).unwrap_err();
            assert!(refusal.contains(says), "{refusal}");
        }
        assert!(check_done_allowed(&done(None)).unwrap_err().contains("gate:{\"command\""));
    }
}
