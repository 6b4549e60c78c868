//! The plan folder's finalisation at a plan's completion (seed 002, DESIGN §12): every
//! completed task's gate run again in the chat's sandbox, then the folder's finaliser
//! (`preflight_dwp`), whose verdict the completion record carries.
//!
//! The crate that writes the folder runs no command (seed 002: nothing in that layer runs a
//! recorded gate); the engine does, here, where the chat's sandbox is. A gate that cannot be
//! run now counts as failing: the verdict is then UNVERIFIED, never a pass on faith.

use preflight_dwp::{read_state, GateInput, Rerun, Status};
use tokio_util::sync::CancellationToken;

use crate::agent::{gate_record, GateRunner, PlanFolderLink};
use crate::ids::ChatId;
use crate::lifecycle::engine::Inner;
use crate::lifecycle::plan_files::tell_chat;
use crate::lifecycle::runner::chat_gates;
use crate::now_rfc3339;
use crate::tasks::FinalizationNote;

/// Runs the gates again and finalises the folder; the verdict for the completion record.
pub(super) async fn finalize_plan_files(
    inner: &Inner,
    chat_id: &ChatId,
    link: &PlanFolderLink,
) -> Option<FinalizationNote> {
    let gates = completed_gates(link).await;
    let runner = chat_gates(inner, chat_id);
    let mut reruns = Vec::new();
    for (task, command) in gates {
        reruns.push(Rerun { task, run: run_again(runner.as_deref(), &command).await });
    }
    let gates_rerun = reruns.len() as u32;
    let writer = link.clone();
    let finalized = tokio::task::spawn_blocking(move || {
        writer.files.finalize(&writer.dir, &reruns, &now_rfc3339())
    })
    .await;
    let report = match finalized {
        Ok(Ok(report)) => report,
        Ok(Err(error)) => {
            tracing::warn!(%chat_id, %error, "the plan folder could not be finalised");
            tell_chat(
                inner,
                chat_id,
                Some(format!("The plan folder could not be finalised: {error}")),
            );
            return None;
        }
        Err(_) => return None,
    };
    let workspace = link.dir.path().ancestors().nth(3).unwrap_or(link.dir.path());
    let file = report.path.strip_prefix(workspace).unwrap_or(&report.path);
    Some(FinalizationNote {
        verdict: report.verdict().as_str().to_owned(),
        reasons: report.finalization.reasons.clone(),
        file: file.to_string_lossy().into_owned(),
        path: report.path.to_string_lossy().into_owned(),
        gates_rerun,
    })
}

/// Each completed task's live gate commands, as `state.json` holds them.
async fn completed_gates(link: &PlanFolderLink) -> Vec<(u32, String)> {
    let dir = link.dir.clone();
    let state = tokio::task::spawn_blocking(move || read_state(&dir)).await;
    let Ok(Ok(snapshot)) = state else { return Vec::new() };
    let completed =
        snapshot.state.tasks.into_iter().filter(|task| task.status == Status::Completed);
    completed
        .flat_map(|task| {
            let live = task.gates.into_iter().filter(|gate| gate.invalidated.is_none());
            live.map(move |gate| (task.id, gate.command)).collect::<Vec<_>>()
        })
        .collect()
}

/// One gate run again, measured as a `done`'s gate is; a run that cannot happen is a
/// failing record saying why.
async fn run_again(runner: Option<&dyn GateRunner>, command: &str) -> GateInput {
    let Some(runner) = runner else {
        return GateInput::new(command, -1, "not run again: the chat has no code sandbox");
    };
    match runner.run(command, &CancellationToken::new()).await {
        Ok(run) => {
            let gate = gate_record(command, &run);
            GateInput { last_run: Some(now_rfc3339()), ..GateInput::from(&gate) }
        }
        Err(error) => {
            let evidence: String =
                format!("could not be run again: {error}").chars().take(280).collect();
            GateInput::new(command, -1, &evidence)
        }
    }
}
