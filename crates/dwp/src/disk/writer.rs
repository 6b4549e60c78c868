//! The guarded write session every update takes: lock, recover a crashed writer's
//! leftovers, read and check the documents, apply a pure transition, and write
//! `state.json`, README.md, PROGRESS.md and the task files it changes as one change. A
//! folder read as v1 is migrated by the session's first write (`disk/migration.rs`), never
//! by a session that writes nothing.

use super::error::DwpError;
use super::folder::{
    read_manifest_versioned, read_optional, read_state_versioned, read_text, sha256_hex, to_json,
    PlanFolder, StateSnapshot, MANIFEST_FILE, PROGRESS_FILE, README_FILE, STATE_FILE,
};
use super::journal::{commit, recover};
use super::lock::{remove_abandoned_candidates, LockOptions, PlanLock};
use super::migration::PendingMigration;
use super::task_files::task_file_changes;
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
    /// Set while the folder on disk is still v1: the next write migrates it.
    migration: Option<PendingMigration>,
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
        let manifest = read_manifest_versioned(dir)?;
        let state = read_state_versioned(dir)?;
        let readme = read_text(&dir.file(README_FILE))?;
        let progress = read_optional(&dir.file(PROGRESS_FILE))?.unwrap_or_default();
        Ok(Writer {
            dir,
            _lock: lock,
            snapshot: state.document,
            readme,
            progress,
            by,
            ticked_by_hand: Vec::new(),
            migration: PendingMigration::of(manifest, state.v1_bytes),
        })
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

    /// Writes an already computed next state (with its log) as one change. On a folder still
    /// v1 on disk, the v1 files are copied beside first and the v2 manifest joins the change.
    pub(crate) fn write(&mut self, applied: Applied, now: &str) -> Result<Vec<String>, DwpError> {
        let readme = replace_task_block(&self.readme, &applied.state, &self.ticked_by_hand)
            .ok_or_else(|| DwpError::ReadmeMarkersMissing { path: self.dir.file(README_FILE) })?;
        let mut log = applied.log;
        if let Some(migration) = &self.migration {
            migration.keep_v1_copies(self.dir)?;
            log.insert(0, migration.progress_line());
        }
        let progress = append_entries(&self.progress, now, &log);
        let state = to_json(&applied.state);
        let manifest = self.migration.as_ref().and_then(PendingMigration::manifest_v2);
        let task_files =
            task_file_changes(self.dir, Some(&self.snapshot.state), &applied.state, &[])?;
        let mut files = vec![(PROGRESS_FILE, progress.as_str()), (README_FILE, readme.as_str())];
        files.extend(manifest.map(|manifest| (MANIFEST_FILE, manifest)));
        files.extend(task_files.iter().map(|(name, text)| (name.as_str(), text.as_str())));
        files.push((STATE_FILE, state.as_str()));
        commit(self.dir.path(), &files)?;
        // A verdict this write withdrew: its attestation goes to the history.
        super::history::keep_withdrawn_attestation(self.dir, &applied.state)?;
        self.migration = None;
        self.snapshot =
            StateSnapshot { sha256: sha256_hex(state.as_bytes()), state: applied.state };
        self.readme = readme;
        self.progress = progress;
        Ok(log)
    }
}
