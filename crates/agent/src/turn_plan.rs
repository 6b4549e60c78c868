//! The built-in `turn_plan` tool: applies one operation to the chat's task list through the
//! tracker, stores the whole new list, and sends a `plan` event with it (DESIGN §5).
//!
//! A `done` with a gate is proved by Preflight, not by the model (DESIGN §11): the command
//! runs in the chat's code sandbox first, and its measured record is what the task keeps.
//! A failing run is recorded on the task, which stays as it was, and the `done` is refused
//! with the output's tail. The run happens before the store's transaction, never inside it.

use std::sync::Arc;

use preflight_dwp::check_done;
use preflight_dwp::now_rfc3339;
use preflight_mcp::{SandboxCallError, SandboxRun};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::{
    parameters_schema, tool_description, Gate, GateRequest, Operation, TaskList, TaskStatus,
    TrackerError, TOOL_NAME,
};
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use preflight_store::{Store, StoreError};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::{Tool, ToolContext};
use crate::checkpoints::{CheckpointLink, CheckpointReason};
use crate::dwp_input::gate_input;
use crate::events::Event;
use crate::work::{WorkChange, WorkStream};

/// How long a gate may run (DESIGN §11).
pub const GATE_TIMEOUT_S: u64 = 300;
/// About how much of a failing gate's output the model is shown.
const FAILURE_TAIL_CHARS: usize = 2000;

/// Runs a gate's command where the chat's other commands run: its code sandbox.
#[async_trait::async_trait]
pub trait GateRunner: Send + Sync {
    async fn run(
        &self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<SandboxRun, SandboxCallError>;
}

pub struct TurnPlanTool {
    pub(super) store: Arc<Store>,
    /// The chat keeps its plan in a `.dwp` folder (DESIGN §6): its rules apply (a `done`
    /// needs a passing gate Preflight ran; `init` may not replace a list with tasks).
    plan_folder_rules: bool,
    /// Where every change this tool makes is said (the plan folder listens there).
    pub(super) work: WorkStream,
    /// The chat's code sandbox; `None`: a gate is refused (nothing could prove it).
    gates: Option<Arc<dyn GateRunner>>,
    /// The chat approves plan changes itself (its auto-approve setting, DESIGN §12).
    pub(super) auto_approve: bool,
    /// Where a task's start and close are checkpointed (issue 31), when the chat has a
    /// workspace.
    checkpoints: Option<CheckpointLink>,
}

impl TurnPlanTool {
    pub fn new(store: Arc<Store>) -> TurnPlanTool {
        TurnPlanTool {
            store,
            plan_folder_rules: false,
            work: WorkStream::default(),
            gates: None,
            auto_approve: false,
            checkpoints: None,
        }
    }

    /// The `.dwp` rules apply: the chat keeps its plan in a folder of its workspace.
    pub fn with_plan_folder_rules(mut self, apply: bool) -> TurnPlanTool {
        self.plan_folder_rules = apply;
        self
    }

    /// Each change the tool makes is emitted on `work`.
    pub fn with_work(mut self, work: WorkStream) -> TurnPlanTool {
        self.work = work;
        self
    }

    /// Plan changes apply at once and are recorded (an auto-approve chat).
    pub fn with_auto_approve(mut self, auto_approve: bool) -> TurnPlanTool {
        self.auto_approve = auto_approve;
        self
    }

    /// A task's start and close take a checkpoint through `link`.
    pub fn with_checkpoints(mut self, link: CheckpointLink) -> TurnPlanTool {
        self.checkpoints = Some(link);
        self
    }

    /// Gates run through `runner` (the chat's code sandbox).
    pub fn with_gates(mut self, runner: Arc<dyn GateRunner>) -> TurnPlanTool {
        self.gates = Some(runner);
        self
    }

    /// Runs the gate of a `done` that would otherwise apply; the measured record, or the
    /// refusal the model reads (the failing record is stored on the task first).
    async fn prove(
        &self,
        chat_id: &ChatId,
        op: &Operation,
        request: &GateRequest,
        context: &ToolContext<'_>,
    ) -> Result<Gate, ToolOutput> {
        let Operation::Done { id, .. } = op else { unreachable!("only a done has a gate") };
        let current =
            self.store.task_list(chat_id).map_err(|e| ToolOutput::error(e.to_string()))?;
        if let Err(refusal) = current.apply(op) {
            return Err(ToolOutput::error(format!("{refusal}\n\n{}", current.render())));
        }
        let Some(runner) = &self.gates else {
            return Err(ToolOutput::error(format!(
                "Preflight cannot run this gate: this chat has no code sandbox (it needs a \
                 workspace, and `[sandbox] enabled` must not be false). Finish with done \
                 without a gate.\n\n{}",
                current.render()
            )));
        };
        let run = runner.run(&request.command, context.cancel).await.map_err(|error| {
            ToolOutput::error(format!(
                "the gate `{}` could not be run: {error}\n\n{}",
                request.command,
                current.render()
            ))
        })?;
        let gate = gate_record(&request.command, &run);
        if gate.passes {
            return Ok(gate);
        }
        let saved = self.save(chat_id, |list| list.with_gate_run(*id, &gate), context).await;
        // The save's change files the run of a task already done (its completion is
        // withdrawn); an open task's run is said here, once.
        let was_done = current.get(*id).is_some_and(|task| task.status == TaskStatus::Done);
        if !was_done {
            let failed = WorkChange::GateFailed { task: *id, gate: &gate };
            self.work.emit_to(context.events, chat_id, failed, context.cancel).await;
        }
        let shown = saved.as_ref().map_or_else(|_| current.render(), TaskList::render);
        Err(ToolOutput::error(format!(
            "{}\nTask {id} stays as it was; mend the cause and finish it again.\n\n{shown}",
            failure_text(&gate, &run)
        )))
    }

    /// Applies `change` to the stored list in one transaction, saves it and tells the window.
    async fn save(
        &self,
        chat_id: &ChatId,
        change: impl FnOnce(&TaskList) -> Result<TaskList, TrackerError>,
        context: &ToolContext<'_>,
    ) -> Result<TaskList, String> {
        let saved = self.store.write(|tx| {
            let current = tx.task_list(chat_id)?;
            match change(&current) {
                Ok(next) => {
                    let next = next.stamped(&current, &now_rfc3339());
                    tx.save_task_list(chat_id, &next)?;
                    Ok(Ok(next))
                }
                Err(refusal) => Ok(Err(format!("{refusal}\n\n{}", current.render()))),
            }
        });
        let next = saved.map_err(|e: StoreError| format!("the plan could not be saved: {e}"))??;
        let listed = WorkChange::Listed { list: &next };
        self.work.emit_to(context.events, chat_id, listed, context.cancel).await;
        context.events.emit(Event::TaskList { tasks: next.tasks.clone() });
        if let Some(link) = &self.checkpoints {
            if let Err(message) = link.take(chat_id, CheckpointReason::Task).await {
                context.events.emit(Event::Error { code: ErrorCode::Checkpoint, message });
            }
        }
        Ok(next)
    }
}

/// The record of a gate run: measured, never the model's word.
pub fn gate_record(command: &str, run: &SandboxRun) -> Gate {
    Gate {
        command: command.to_owned(),
        exit_code: run.exit_code,
        passes: run.exit_code == 0 && !run.timed_out,
        evidence: run.evidence(),
        duration_ms: run.duration_ms,
        last_run: now_rfc3339(),
        timed_out: run.timed_out,
    }
}

fn failure_text(gate: &Gate, run: &SandboxRun) -> String {
    let how = if gate.timed_out {
        format!("timed out after {} s and was killed", GATE_TIMEOUT_S)
    } else {
        format!("exited with {}", gate.exit_code)
    };
    format!(
        "The gate failed: Preflight ran `{}` in the sandbox and it {how}.\nOutput (the end):\n{}",
        gate.command,
        run.output_tail(FAILURE_TAIL_CHARS)
    )
}

/// How a passing gate is told back to the model.
fn passed_text(gate: &Gate, claimed: bool) -> String {
    let mut text = format!(
        "Preflight ran the gate `{}`: exit code 0 in {} ms; evidence: {}",
        gate.command, gate.duration_ms, gate.evidence
    );
    if claimed {
        text.push_str(
            "\n(The exit_code and evidence you wrote are not used: Preflight measures them.)",
        );
    }
    text
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
        let chat_id = context.chat_id;
        let op = match Operation::from_value(&arguments) {
            Ok(op) => op,
            Err(refusal) => {
                let current = self.store.task_list(chat_id).unwrap_or_default();
                return ToolOutput::error(format!("{refusal}\n\n{}", current.render()));
            }
        };
        let current = self.store.task_list(chat_id).unwrap_or_default();
        if let Err(refusal) = current.check_own_plan_size(&op) {
            return ToolOutput::error(format!("{refusal}\n\n{}", current.render()));
        }
        let op = self.planned_gate(&current, op);
        if let Some(answer) = self.plan_change(chat_id, &op, context).await {
            return answer;
        }
        let (measured, claimed) = match &op {
            Operation::Done { gate: Some(request), .. } => {
                match self.prove(chat_id, &op, request, context).await {
                    Ok(gate) => (Some(gate), request.claimed),
                    Err(refused) => return refused,
                }
            }
            _ => (None, false),
        };
        if self.plan_folder_rules {
            if let Err(refused) =
                self.check_plan_files(chat_id, &op, measured.as_ref(), context).await
            {
                return refused;
            }
        }
        match self.save(chat_id, |list| list.apply_measured(&op, measured.as_ref()), context).await
        {
            Ok(next) => match &measured {
                Some(gate) => {
                    ToolOutput::ok(format!("{}\n\n{}", passed_text(gate, claimed), next.render()))
                }
                None => ToolOutput::ok(next.render()),
            },
            Err(refusal) => ToolOutput::error(refusal),
        }
    }
}

impl TurnPlanTool {
    /// A `done` without a gate, of a task with a planned check (DESIGN §14), as the `done`
    /// proven by that check: the command the user saw on the plan card before approving.
    /// Without a sandbox to run it in, the `done` stays as it was sent.
    fn planned_gate(&self, current: &TaskList, op: Operation) -> Operation {
        let Operation::Done { id, outcome, gate: None } = op else { return op };
        let planned = match &self.gates {
            Some(_) => current.get(id).and_then(|task| task.check.clone()),
            None => None,
        };
        Operation::Done { id, outcome, gate: planned.map(GateRequest::new) }
    }

    /// The `.dwp` rules before an operation applies: a refusal carries the plan as it is.
    /// A refused `done` still records its measured gate (every run is a protocol point).
    async fn check_plan_files(
        &self,
        chat_id: &ChatId,
        op: &Operation,
        measured: Option<&Gate>,
        context: &ToolContext<'_>,
    ) -> Result<(), ToolOutput> {
        let current =
            self.store.task_list(chat_id).map_err(|error| ToolOutput::error(error.to_string()))?;
        let Err(refusal) = check_turn_plan_allowed(op, &current, measured) else { return Ok(()) };
        if let (Operation::Done { id, .. }, Some(gate)) = (op, measured) {
            // Logged when it fails; the refusal below is what the model must hear now.
            let failed = WorkChange::GateFailed { task: *id, gate };
            let _ = self.work.emit(chat_id, failed, context.cancel).await;
        }
        Err(ToolOutput::error(format!("{refusal}\n\n{}", current.render())))
    }
}

/// In a chat whose plan is saved as files: `done` needs a passing gate that Preflight ran
/// (the `.dwp` rule), and `init` may not replace a list that has tasks (the files keep the
/// approved plan, keyed by id). The error is the text the model reads.
fn check_turn_plan_allowed(
    op: &Operation,
    current: &TaskList,
    measured: Option<&Gate>,
) -> Result<(), String> {
    if let Operation::Init { .. } = op {
        if !current.is_empty() {
            return Err(
                "this plan is saved in .dwp/plans and cannot be replaced: change it with add \
                        (new tasks) and drop (tasks that no longer apply), not init"
                    .to_owned(),
            );
        }
    }
    let Operation::Done { id, .. } = op else { return Ok(()) };
    check_done(*id, measured.map(gate_input)).map_err(|refusal| refusal.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use preflight_protocol::tasks::NewTask;

    fn gate(exit_code: i64, evidence: &str) -> Gate {
        Gate {
            command: "cargo test".into(),
            exit_code,
            passes: exit_code == 0,
            evidence: evidence.into(),
            duration_ms: 5,
            last_run: "2026-12-01T10:00:00Z".into(),
            timed_out: false,
        }
    }

    #[test]
    fn init_may_not_replace_a_saved_plan_and_done_needs_a_measured_gate() {
        let empty = TaskList::empty();
        let list = TaskList::from_steps(["a"]).unwrap();
        let init = Operation::Init { tasks: vec![NewTask::new("b", None)] };
        assert_eq!(check_turn_plan_allowed(&init, &empty, None), Ok(()));
        assert!(check_turn_plan_allowed(&init, &list, None).unwrap_err().contains("not init"));
        let add = Operation::Add { tasks: vec![NewTask::new("b", None)] };
        assert_eq!(check_turn_plan_allowed(&add, &list, None), Ok(()));
        let done = Operation::Done { id: 1, outcome: None, gate: None };
        let refusal = check_turn_plan_allowed(&done, &list, None).unwrap_err();
        assert!(refusal.contains("needs a passing check"), "{refusal}");
        assert_eq!(check_turn_plan_allowed(&done, &list, Some(&gate(0, "12 passed"))), Ok(()));
        let refusal = check_turn_plan_allowed(&done, &list, Some(&gate(101, "1 failed")));
        assert!(refusal.unwrap_err().contains("exit code 101"));
    }

    #[test]
    fn a_record_is_measured_and_a_timeout_never_passes() {
        let run = SandboxRun {
            exit_code: 0,
            stdout: "ok\n".into(),
            stderr: String::new(),
            timed_out: true,
            truncated: false,
            duration_ms: 300_000,
        };
        let record = gate_record("sleep 999", &run);
        assert!(!record.passes && record.timed_out);
        assert!(failure_text(&record, &run).contains("timed out after 300 s"));
        let record = gate_record("true", &SandboxRun { timed_out: false, ..run });
        assert!(record.passes && record.evidence == "ok" && !record.last_run.is_empty());
        assert!(passed_text(&record, true).contains("Preflight measures them"));
    }
}
