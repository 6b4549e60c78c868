//! The guarded write session every update takes: lock, recover a crashed writer's
//! leftovers, read and check the documents, apply a pure transition, and write
//! `state.json`, README.md and PROGRESS.md as one change.

use super::error::DwpError;
use super::folder::{
    read_manifest, read_optional, read_state, read_text, sha256_hex, to_json, PlanFolder,
    StateSnapshot, PROGRESS_FILE, README_FILE, STATE_FILE,
};
use super::journal::{commit, recover};
use super::lock::{remove_abandoned_candidates, LockOptions, PlanLock};
use crate::rules::documents::{Author, PlanState};
use crate::rules::findings::checkbox_findings;
use crate::rules::progress::append_entries;
use crate::rules::readme::{parse_readme, replace_task_block};
use crate::rules::reconciliation::follow_readme;
use crate::rules::transition::{apply, Applied, Change};

/// An open write session: the lock held, crash leftovers recovered, the documents read and
/// checked. Each [`Writer::apply`] is one protocol point written as one change.
pub(crate) struct Writer<'a> {
    dir: &'a PlanFolder,
    _lock: PlanLock,
    snapshot: StateSnapshot,
    readme: String,
    progress: String,
    by: Author,
    /// Boxes a person ticked without the evidence to complete them: kept ticked by every
    /// write of this session (`follow_markdown`).
    ticked_by_hand: Vec<u32>,
}

impl<'a> Writer<'a> {
    pub(crate) fn begin(
        dir: &'a PlanFolder,
        lock: LockOptions,
        by: Author,
    ) -> Result<Writer<'a>, DwpError> {
        let lock = PlanLock::acquire(dir.path(), lock)?;
        recover(dir.path())?;
        remove_abandoned_candidates(dir.path())?;
        read_manifest(dir)?;
        let snapshot = read_state(dir)?;
        let readme = read_text(&dir.file(README_FILE))?;
        let progress = read_optional(&dir.file(PROGRESS_FILE))?.unwrap_or_default();
        Ok(Writer { dir, _lock: lock, snapshot, readme, progress, by, ticked_by_hand: Vec::new() })
    }

    pub(crate) fn state(&self) -> &PlanState {
        &self.snapshot.state
    }

    pub(crate) fn sha256(&self) -> &str {
        &self.snapshot.sha256
    }

    pub(crate) fn readme(&self) -> &str {
        &self.readme
    }

    /// Refuses when the state changed since the caller's snapshot.
    pub(crate) fn expect_sha256(&self, expected: &str) -> Result<(), DwpError> {
        if !expected.trim().eq_ignore_ascii_case(&self.snapshot.sha256) {
            return Err(DwpError::StateChanged {
                expected: expected.trim().to_owned(),
                actual: self.snapshot.sha256.clone(),
            });
        }
        Ok(())
    }

    /// Refuses when README's checkboxes and `state.json` disagree: Markdown wins, so no
    /// write may go on from a state the human source of truth contradicts.
    pub(crate) fn ensure_in_sync(&self) -> Result<(), DwpError> {
        let findings = checkbox_findings(&parse_readme(&self.readme), &self.snapshot.state);
        if findings.is_empty() {
            return Ok(());
        }
        Err(DwpError::OutOfSync { findings: findings.iter().map(ToString::to_string).collect() })
    }

    /// The engine's agreement step before it writes: README.md's checkboxes win where the
    /// evidence allows (written as a reconciliation point), and what cannot be reconciled is
    /// held — a box ticked by hand stays ticked — and returned as disagreements, so the
    /// folder goes on following the work instead of refusing every write.
    pub(crate) fn follow_markdown(&mut self, now: &str) -> Result<Vec<String>, DwpError> {
        let readme = parse_readme(&self.readme);
        let followed = follow_readme(&self.snapshot.state, &readme, now, &self.by)?;
        self.ticked_by_hand = followed.ticked_by_hand;
        if !followed.applied.log.is_empty() {
            self.write(followed.applied, now)?;
        }
        Ok(followed.disagreements)
    }

    /// Applies one change and writes it; returns the PROGRESS.md lines it added.
    pub(crate) fn apply(&mut self, change: &Change, now: &str) -> Result<Vec<String>, DwpError> {
        let applied = apply(&self.snapshot.state, change, now, &self.by)?;
        self.write(applied, now)
    }

    /// Writes an already computed next state (with its log) as one change.
    pub(crate) fn write(&mut self, applied: Applied, now: &str) -> Result<Vec<String>, DwpError> {
        let readme = replace_task_block(&self.readme, &applied.state, &self.ticked_by_hand)
            .ok_or_else(|| DwpError::ReadmeMarkersMissing { path: self.dir.file(README_FILE) })?;
        let progress = append_entries(&self.progress, now, &applied.log);
        let state = to_json(&applied.state);
        commit(
            self.dir.path(),
            &[(PROGRESS_FILE, &progress), (README_FILE, &readme), (STATE_FILE, &state)],
        )?;
        self.snapshot =
            StateSnapshot { sha256: sha256_hex(state.as_bytes()), state: applied.state };
        self.readme = readme;
        self.progress = progress;
        Ok(applied.log)
    }
}
