//! The engine's planner and tracker types as `preflight-dwp`'s inputs: the approved plan
//! document as a [`PlanInput`], the task list as [`TrackedTask`]s, a gate run as a
//! [`GateInput`]. The plan-folder crate knows nothing of the engine; these conversions are
//! the whole seam (public, so the engine's tests use them too).

use preflight_dwp::{
    AmendKind, AmendmentInput, Authority, Complexity, DropSettled, GateInput, LibraryInput,
    PlanApproval, PlanInput, PlannedFilesInput, StepInput, TrackedStatus, TrackedTask,
};
use preflight_protocol::planner::{self, Approval, PlanDocument, PlanStep};
use preflight_protocol::tasks::{
    ChangeKind, Gate, PlanChange, Task, TaskList, TaskOrigin, TaskStatus, MAX_TITLE_CHARS,
};

// The plan files hold titles to the tracker's limit: a title the tracker took is never refused.
const _: () = assert!(MAX_TITLE_CHARS == preflight_dwp::MAX_TITLE_CHARS);

/// A gate's run as the plan folder records it.
pub fn gate_input(gate: &Gate) -> GateInput {
    // `last_run` is stamped by the plan folder when it records the run, a moment later.
    GateInput::new(&gate.command, gate.exit_code, &gate.evidence)
}

/// A task as the plan folder tracks it.
pub fn tracked_task(task: &Task) -> TrackedTask {
    let status = match task.status {
        TaskStatus::Pending => TrackedStatus::Pending,
        TaskStatus::Active => TrackedStatus::Active,
        TaskStatus::Done => TrackedStatus::Done,
        TaskStatus::Dropped => TrackedStatus::Dropped,
    };
    TrackedTask {
        id: task.id,
        title: task.title.clone(),
        phase: task.phase.clone(),
        status,
        outcome: task.outcome.clone(),
        gate: task.gate.as_ref().map(gate_input),
        // The engine's list drops a plan step only once the user approved (DESIGN §12);
        // the executor's own tasks are its own to drop.
        drop_settled: match task.origin {
            TaskOrigin::Plan => DropSettled::Approved,
            TaskOrigin::Executor => DropSettled::OwnTask,
        },
    }
}

/// The task list as the plan folder tracks it.
pub fn tracked_tasks(list: &TaskList) -> Vec<TrackedTask> {
    list.tasks.iter().map(tracked_task).collect()
}

/// The approved plan document as the plan folder's input: every field README.md shows,
/// the judgement and each step's files and dependencies included. The document does not
/// hold the user's request; a caller that has it sets `prompt` (PROMPTS.md says when none
/// was handed in).
pub fn plan_input(plan: &PlanDocument) -> PlanInput {
    let approval = match plan.approval {
        Approval::Pending => PlanApproval::Pending,
        Approval::Approved => PlanApproval::Approved,
        Approval::PreApproved => PlanApproval::PreApproved,
        Approval::Rejected => PlanApproval::Rejected,
    };
    let judgement = &plan.judgement;
    PlanInput {
        title: plan.title.clone(),
        aim: plan.aim.clone(),
        steps: plan.steps.iter().map(step_input).collect(),
        libraries: plan
            .libraries
            .iter()
            .map(|library| LibraryInput {
                name: library.name.clone(),
                purpose: library.purpose.clone(),
                usage: library.usage.clone(),
            })
            .collect(),
        approval,
        risks: judgement.risks.clone(),
        approach: judgement.approach.clone(),
        alternatives: judgement.alternatives.clone(),
        planned_files: PlannedFilesInput {
            create: judgement.planned_files.create.clone(),
            modify: judgement.planned_files.modify.clone(),
        },
        tests: judgement.tests.clone(),
        complexity: judgement.complexity.map(|complexity| match complexity {
            planner::Complexity::Low => Complexity::Low,
            planner::Complexity::Medium => Complexity::Medium,
            planner::Complexity::High => Complexity::High,
        }),
        prompt: None,
    }
}

fn step_input(step: &PlanStep) -> StepInput {
    StepInput {
        action: step.action.clone(),
        expected: step.expected.clone(),
        check: step.check.clone(),
        files: step.files.clone(),
        depends_on: step.depends_on.clone(),
    }
}

/// An approved change as the amendment the plan folder records (DESIGN §12, seed 002):
/// `before` is the list the change applied to (a replacement takes out its open tasks).
pub(crate) fn amendment_of(change: &PlanChange, before: &TaskList) -> AmendmentInput {
    let request = &change.request;
    let (kind, tasks) = match request.kind {
        ChangeKind::Drop => (AmendKind::Drop, request.task.into_iter().collect()),
        ChangeKind::Modify => (AmendKind::Modify, request.task.into_iter().collect()),
        ChangeKind::Check => (AmendKind::Check, request.task.into_iter().collect()),
        ChangeKind::Replace => {
            let open = before
                .tasks
                .iter()
                .filter(|task| matches!(task.status, TaskStatus::Pending | TaskStatus::Active));
            (AmendKind::Replace, open.map(|task| task.id).collect())
        }
    };
    AmendmentInput {
        kind,
        tasks,
        observed: request.reason.clone(),
        new_title: request.new_title.clone(),
        new_check: request.new_check.clone(),
        authority: if change.auto_approved { Authority::AutoApprove } else { Authority::User },
        change: Some(change.id.to_string()),
        target: None,
    }
}

#[cfg(test)]
mod tests;
