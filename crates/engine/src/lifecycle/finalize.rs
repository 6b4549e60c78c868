//! The plan folder's finalisation at a plan's completion (seed 002, DESIGN §12): every
//! completed task's gate run again in the chat's sandbox, then the folder's finaliser
//! (`preflight_dwp`), whose verdict the completion record carries.
//!
//! The crate that writes the folder runs no command (seed 002: nothing in that layer runs a
//! recorded gate); the engine does, here, where the chat's sandbox is. A gate that cannot be
//! run now counts as failing: the verdict is then UNVERIFIED, never a pass on faith.
//!
//! What the reruns may cost is bounded (issue 46): at most [`MAX_RERUNS`] gates run again,
//! one after the other, each under the sandbox's gate timeout, and the chat's Stop (the
//! turn's token) ends the running one at once. A gate not run again — past the cap, or
//! after a Stop — is recorded as failing with the reason, so FINALIZATION.json says it and
//! the verdict is UNVERIFIED; the folder is finalised either way, never left half-done.

use std::sync::Arc;

use preflight_agent::{gate_input, gate_record, GateRunner, Heard, PlanFolderLink};
use preflight_dwp::now_rfc3339;
use preflight_dwp::{read_state, GateInput, Rerun, Status};
use preflight_protocol::ids::ChatId;
use preflight_protocol::tasks::FinalizationNote;
use tokio_util::sync::CancellationToken;

/// Gates run again at most; the others are recorded as not run again. As many as a task list
/// can hold tasks, so a plan the engine ran (one live gate a task) is never cut; only gates
/// planted in the folder beyond that are.
const MAX_RERUNS: usize = preflight_protocol::tasks::MAX_TASKS;
/// The evidence of a gate the user's Stop ended or kept from running again.
const STOPPED: &str = "not run again: the finalisation was stopped by the user";

/// Runs the gates again through `runner` (the chat's code sandbox) and finalises the folder;
/// the verdict for the completion record, or what the chat must hear when the folder could
/// not be finalised. `cancel` (the turn's) stops the reruns; the folder is finalised with
/// what ran.
pub(super) async fn finalize_plan_files(
    runner: Option<Arc<dyn GateRunner>>,
    chat_id: &ChatId,
    link: &PlanFolderLink,
    also: &[u32],
    cancel: &CancellationToken,
) -> Heard {
    let gates = gates_to_run(link, also).await;
    let (reruns, gates_rerun) = run_all_again(runner.as_deref(), gates, cancel).await;
    let writer = link.clone();
    let finalized = tokio::task::spawn_blocking(move || {
        writer.files.finalize(&writer.dir, &reruns, &now_rfc3339())
    })
    .await;
    let report = match finalized {
        Ok(Ok(report)) => report,
        Ok(Err(error)) => {
            tracing::warn!(%chat_id, %error, "the plan folder could not be finalised");
            return Heard::told(Some(format!("The plan folder could not be finalised: {error}")));
        }
        Err(_) => return Heard::default(),
    };
    let workspace = link.dir.path().ancestors().nth(3).unwrap_or(link.dir.path());
    let file = report.path.strip_prefix(workspace).unwrap_or(&report.path);
    let note = FinalizationNote {
        verdict: report.verdict().as_str().to_owned(),
        reasons: report.finalization.reasons.clone(),
        file: file.to_string_lossy().into_owned(),
        path: report.path.to_string_lossy().into_owned(),
        gates_rerun,
        reopened: report.reopened.clone(),
        dropped_without_user: report.finalization.dropped_without_user,
        planned: report.finalization.planned,
        accepted_at: None,
    };
    Heard { events: Vec::new(), finalization: Some(note) }
}

/// The live gate commands of each completed task and of the tasks in `also` (open again
/// after a check failed when run again), as `state.json` holds them.
async fn gates_to_run(link: &PlanFolderLink, also: &[u32]) -> Vec<(u32, String)> {
    let dir = link.dir.clone();
    let state = tokio::task::spawn_blocking(move || read_state(&dir)).await;
    let Ok(Ok(snapshot)) = state else { return Vec::new() };
    let completed = snapshot
        .state
        .tasks
        .into_iter()
        .filter(|task| task.status == Status::Completed || also.contains(&task.id));
    completed
        .flat_map(|task| {
            let live = task.gates.into_iter().filter(|gate| gate.invalidated.is_none());
            live.map(move |gate| (task.id, gate.command)).collect::<Vec<_>>()
        })
        .collect()
}

/// Each gate run again in turn, the first [`MAX_RERUNS`] only and none once `cancel` is
/// cancelled; every gate gets a record. Returns them and how many ran.
async fn run_all_again(
    runner: Option<&dyn GateRunner>,
    gates: Vec<(u32, String)>,
    cancel: &CancellationToken,
) -> (Vec<Rerun>, u32) {
    let mut reruns = Vec::with_capacity(gates.len());
    let mut ran = 0;
    for (index, (task, command)) in gates.into_iter().enumerate() {
        let (run, did) = if cancel.is_cancelled() {
            (GateInput::new(&command, -1, STOPPED), false)
        } else if index >= MAX_RERUNS {
            let why = format!(
                "not run again: only the first {MAX_RERUNS} gates are run again at finalisation"
            );
            (GateInput::new(&command, -1, &why), false)
        } else {
            run_again(runner, &command, cancel).await
        };
        ran += u32::from(did);
        reruns.push(Rerun { task, run, ran: did });
    }
    (reruns, ran)
}

/// One gate run again, measured as a `done`'s gate is, and whether it ran: a run that
/// cannot happen, or that the user's Stop ended, says why and is never filed as a run.
async fn run_again(
    runner: Option<&dyn GateRunner>,
    command: &str,
    cancel: &CancellationToken,
) -> (GateInput, bool) {
    let Some(runner) = runner else {
        return (GateInput::new(command, -1, "not run again: the chat has no code sandbox"), false);
    };
    let run = runner.run(command, cancel).await;
    if cancel.is_cancelled() {
        return (GateInput::new(command, -1, STOPPED), false);
    }
    match run {
        Ok(run) => {
            let gate = gate_record(command, &run);
            (GateInput { last_run: Some(now_rfc3339()), ..gate_input(&gate) }, true)
        }
        Err(error) => {
            let evidence: String =
                format!("not run again: it could not be run ({error})").chars().take(280).collect();
            (GateInput::new(command, -1, &evidence), false)
        }
    }
}
