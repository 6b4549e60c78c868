//! The guarded updater as one call, what `preflight dwp update` runs: optional explicit
//! breaking of a stale lock, the lock, the `--expected-sha256` check, the README/state
//! agreement check, then one transition (or a reconciliation) written as one change.

use super::error::DwpError;
use super::folder::PlanFolder;
use super::lock::break_stale_lock;
use super::writer::Writer;
use crate::disk::plan_files::PlanFolderWriter;
use crate::rules::documents::Author;
use crate::rules::evidence_states::record_investigation;
use crate::rules::readme::parse_readme;
use crate::rules::reconciliation::reconcile;
use crate::rules::refusal::Refusal;
use crate::rules::transition::{stamp, Applied, Change};

#[derive(Debug, Clone, PartialEq)]
pub enum UpdateAction {
    Change(Change),
    /// Resolve the current blocker; `Some(task)` must name it.
    ResolveBlocker {
        task: Option<u32>,
    },
    /// Regenerate `state.json` from README.md (Markdown wins).
    Reconcile,
    /// Record a completed investigation's findings on a task (seed 002): real work that
    /// closes the task only through an amendment of kind `investigation` naming it.
    Investigation {
        task: u32,
        findings: String,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRequest {
    pub action: UpdateAction,
    pub expected_sha256: Option<String>,
    /// Remove a stale lock first, after checking no writer remains (never a live one).
    pub break_stale_lock: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateReport {
    /// The PROGRESS.md lines written; empty when there was nothing to change.
    pub log: Vec<String>,
    /// The SHA-256 of `state.json` as it now is.
    pub sha256: String,
    /// The owner of a stale lock that was removed first.
    pub broken_lock: Option<String>,
}

impl PlanFolderWriter {
    /// Runs one guarded update; a refusal writes nothing.
    pub fn update(
        &self,
        dir: &PlanFolder,
        request: &UpdateRequest,
        now: &str,
    ) -> Result<UpdateReport, DwpError> {
        let broken_lock =
            if request.break_stale_lock { break_stale_lock(dir.path(), self.lock)? } else { None };
        let mut writer = Writer::begin(dir, self.lock, self.author.clone())?;
        if let Some(expected) = &request.expected_sha256 {
            writer.expect_sha256(expected)?;
        }
        let log = run_action(&mut writer, &request.action, now, &self.author)?;
        Ok(UpdateReport { log, sha256: writer.sha256().to_owned(), broken_lock })
    }
}

/// The action's transition written through `writer`; a reconciliation that finds the files
/// in agreement writes nothing.
fn run_action(
    writer: &mut Writer,
    action: &UpdateAction,
    now: &str,
    by: &Author,
) -> Result<Vec<String>, DwpError> {
    if let UpdateAction::Reconcile = action {
        let applied = reconcile(writer.state(), &parse_readme(writer.readme()), now, by)?;
        return if applied.log.is_empty() { Ok(Vec::new()) } else { writer.write(applied, now) };
    }
    writer.ensure_in_sync()?;
    let change = match action {
        UpdateAction::ResolveBlocker { task } => {
            let current = writer.state().blocked.as_ref().map(|blocked| blocked.task);
            Change::ResolveBlocker { task: task.or(current).ok_or(Refusal::NothingBlocked)? }
        }
        UpdateAction::Change(change) => change.clone(),
        UpdateAction::Investigation { task, findings } => {
            let (mut state, log) = record_investigation(writer.state(), *task, findings, now)?;
            stamp(&mut state, now, by);
            return writer.write(Applied { state, log }, now);
        }
        UpdateAction::Reconcile => unreachable!("handled above"),
    };
    writer.apply(&change, now)
}
