//! A v1 folder migrated on disk at its first write (seed 002 lets `manifest.json` change in a
//! migration of the specification's version that PROGRESS.md records): readers see the v2
//! migration in memory (`disk/folder.rs`); the writer's first write under the lock makes it
//! the files.
//!
//! Order: first the v1 files are copied, byte for byte, to `manifest.v1.json` and
//! `state.v1.json` (each written atomically); then the v2 manifest and state are committed with
//! the protocol point's README.md and PROGRESS.md (which gets a line saying so) as one journal
//! change (`disk/journal.rs`). A crash leaves the v1 folder (perhaps with its copies already
//! beside it, rewritten identically by the next attempt) or, once the change is decided, the
//! migrated one; a folder read as v2 is never migrated again.

use preflight_files::write_atomic;

use super::error::DwpError;
use super::folder::{to_json, PlanFolder, Versioned};
use crate::rules::documents::Manifest;

/// Where the v1 `manifest.json` is kept after the migration.
pub(crate) const MANIFEST_V1_COPY: &str = "manifest.v1.json";
/// Where the v1 `state.json` is kept after the migration.
pub(crate) const STATE_V1_COPY: &str = "state.v1.json";

/// What a folder read as v1 still owes its first write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PendingMigration {
    /// The v1 manifest's bytes and the v2 manifest that replaces it.
    manifest: Option<(Vec<u8>, String)>,
    /// The v1 state's bytes (the v2 state is whatever the write writes).
    state: Option<Vec<u8>>,
}

impl PendingMigration {
    /// What the documents as read owe; `None` when both are v2 already.
    pub(crate) fn of(
        manifest: Versioned<Manifest>,
        state_v1_bytes: Option<Vec<u8>>,
    ) -> Option<PendingMigration> {
        let manifest = manifest.v1_bytes.map(|bytes| (bytes, to_json(&manifest.document)));
        let pending = PendingMigration { manifest, state: state_v1_bytes };
        (pending.manifest.is_some() || pending.state.is_some()).then_some(pending)
    }

    /// The first step, before anything else changes: each v1 file copied beside, unchanged.
    pub(crate) fn keep_v1_copies(&self, dir: &PlanFolder) -> Result<(), DwpError> {
        for (name, bytes) in self.copies() {
            write_atomic(&dir.file(name), bytes)?;
        }
        Ok(())
    }

    /// The v2 `manifest.json` to commit with the protocol point, when the manifest was v1.
    pub(crate) fn manifest_v2(&self) -> Option<&str> {
        self.manifest.as_ref().map(|(_, v2)| v2.as_str())
    }

    /// The PROGRESS.md line that records the migration.
    pub(crate) fn progress_line(&self) -> String {
        let copies: Vec<String> = self.copies().map(|(name, _)| format!("`{name}`")).collect();
        format!(
            "Plan folder migrated from DWP schema v1 to v2 on its first write; the v1 files are kept unchanged beside as {}.",
            copies.join(" and ")
        )
    }

    fn copies(&self) -> impl Iterator<Item = (&'static str, &[u8])> {
        let manifest = self.manifest.as_ref().map(|(v1, _)| (MANIFEST_V1_COPY, v1.as_slice()));
        let state = self.state.as_deref().map(|v1| (STATE_V1_COPY, v1));
        manifest.into_iter().chain(state)
    }
}
