//! Work undone from outside the plan's own protocol, and what "unfinished" means: a restore
//! of the workspace takes tasks back to open (`PlanState::open_tasks`), and any change that
//! leaves the plan unfinished withdraws the finaliser's verdict over it. Pure, like the other
//! transitions.
//!
//! **Invariant:** the folder never claims more than the truth. A task whose work was undone
//! is open again with its evidence invalidated and the cause said in PROGRESS.md; a verdict
//! (VERIFIED, or UNVERIFIED accepted by the user) holds only while every task is finished,
//! and is kept in `withdrawn_verifications` — history, never proof — once it does not.

use crate::rules::documents::{PlanState, Status};
use crate::rules::refusal::Refusal;
use crate::rules::task_helpers::{describe_run, task_in_mut, MAX_NOTE_CHARS};
use crate::rules::text::checked_text;

/// Where a withdrawn attestation is kept, inside the plan's `analysis_results/`.
pub(crate) const HISTORY_DIR: &str = "history";

/// Where the `n`th withdrawn attestation is kept, relative to the plan folder.
pub(crate) fn history_name(n: usize) -> String {
    format!("analysis_results/{HISTORY_DIR}/FINALIZATION-{n}.json")
}

impl PlanState {
    /// Every task is completed with its gate or skipped by the user's decision, and at
    /// least one is completed (DESIGN §12, which refines seed 002's "Pominięta praca nigdy
    /// nie może uczynić planu completed": skipped work alone never completes a plan, and a
    /// skip is always the user's approved change).
    pub fn all_done(&self) -> bool {
        self.tasks.iter().any(|t| t.status == Status::Completed) && self.open_tasks().is_empty()
    }

    /// The ids of the tasks neither completed nor skipped, in the plan's order.
    pub fn open_tasks(&self) -> Vec<u32> {
        let open =
            self.tasks.iter().filter(|t| !matches!(t.status, Status::Completed | Status::Skipped));
        open.map(|task| task.id).collect()
    }

    /// [`open_tasks`](Self::open_tasks) as PROGRESS.md and findings name them: "2, 3".
    pub(crate) fn open_task_list(&self) -> String {
        self.open_tasks().iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// Task `id` is open again because its work was undone (`reason`): `in_progress` when the
/// restored list has it active, `pending` otherwise; its live gate runs are invalidated
/// and said first. Refused for a task that is open already.
pub(crate) fn undo(
    state: &mut PlanState,
    id: u32,
    reason: &str,
    active: bool,
    now: &str,
    log: &mut Vec<String>,
) -> Result<(), Refusal> {
    let reason = checked_text("the restore reason", reason, MAX_NOTE_CHARS)?;
    let task = task_in_mut(state, id)?;
    if !matches!(task.status, Status::Completed | Status::Blocked | Status::Skipped) {
        return Err(Refusal::NothingToReopen { task: id, status: task.status });
    }
    log.push(format!("Task {id} open again (was {}): {reason}.", task.status.as_str()));
    for gate in task.gates.iter_mut().filter(|gate| gate.is_live()) {
        let was = describe_run(gate);
        log.push(format!(
            "Task {id} gate `{}` invalidated by the restore (was: {was}).",
            gate.command
        ));
        gate.invalidated = Some(format!("undone at {now}: {reason}"));
    }
    task.completed_at = None;
    task.block = None;
    task.status = if active { Status::InProgress } else { Status::Pending };
    if state.blocked.as_ref().is_some_and(|blocked| blocked.task == id) {
        state.blocked = None;
    }
    if active {
        for other in state.tasks.iter_mut().filter(|t| t.id != id && t.status == Status::InProgress)
        {
            other.status = Status::Pending;
            log.push(format!("Task {} paused.", other.id));
        }
    }
    Ok(())
}

/// The plan's verdict withdrawn when a change (`why`, in a few words) left it unfinished:
/// moved to the history with why, its attestation's new place named, and said in
/// PROGRESS.md.
pub(crate) fn withdraw_if_unfinished(state: &mut PlanState, why: String, log: &mut Vec<String>) {
    if state.all_done() {
        return;
    }
    let Some(mut verdict) = state.verification.take() else { return };
    let kept = history_name(state.withdrawn_verifications.len() + 1);
    let accepted = if verdict.accepted.is_some() { ", accepted by the user," } else { "" };
    log.push(format!(
        "The plan's completion is withdrawn: its {} verdict of {}{accepted} no longer holds ({why}); the attestation is kept as {kept}.",
        verdict.verdict.as_str(),
        verdict.at
    ));
    verdict.withdrawn = Some(why);
    verdict.attestation = kept;
    state.withdrawn_verifications.push(verdict);
}
