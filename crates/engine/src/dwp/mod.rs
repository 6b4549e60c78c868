//! The plan projection of seed 002 (DESIGN §6): an approved plan as files in the workspace,
//! `.dwp/plans/PLAN_<slug>/` with README.md (the human source of truth), PROGRESS.md (the
//! narrative log), `manifest.json` (written once) and `state.json` (rewritten at each
//! protocol point), plus the guarded updater and the verifier the CLI exposes.
//!
//! Pure: `schema`, `validate`, `gate`, `update` (transitions), `reconcile`, `readme`,
//! `refine`, `progress`, `verify`, `slug`, `sync::changes_for`. I/O: `atomic`, `journal`, `lock`,
//! `plan_dir`, `materialize`, `sync`, `updater`, `check`. Every `PlanFiles` method blocks
//! (file I/O, and up to `LockOptions::wait` for another writer): call it off the async
//! runtime (`spawn_blocking`).

mod atomic;
mod check;
mod error;
mod gate;
mod journal;
mod lock;
mod materialize;
mod plan_dir;
mod progress;
mod readme;
mod reconcile;
mod refine;
mod schema;
mod slug;
mod sync;
mod update;
mod updater;
mod validate;
mod verify;

pub use check::{verify_plan, VerifyReport};
pub use error::{DwpError, Refusal};
pub use gate::{
    admits_not_run, check_done_allowed, completion_allowed, GateInput, MAX_COMMAND_CHARS,
    MAX_EVIDENCE_CHARS,
};
pub use journal::{commit, has_pending_commit, recover, Recovery, MARKER as COMMIT_MARKER};
pub use lock::{
    break_stale_lock, inspect as inspect_lock, LockOptions, LockState, PlanLock, LOCK_DIR,
};
pub use plan_dir::{
    read_manifest, read_state, sha256_hex, PlanDir, StateSnapshot, Writer, MANIFEST_FILE,
    PLANS_DIR, PROGRESS_FILE, README_FILE, STATE_FILE,
};
pub use progress::{append_entries, render_progress_header};
pub use readme::{
    parse_readme, render_task_block, replace_task_block, ReadmeTask, ReadmeView, TASKS_BEGIN,
    TASKS_END,
};
pub use reconcile::reconcile;
pub use schema::*;
pub use slug::slug;
pub use sync::{changes_for, check_turn_plan_allowed, SyncReport, DROP_NEEDS};
pub use update::{apply, describe_run, Applied, Change, MAX_NOTE_CHARS};
pub use updater::{UpdateAction, UpdateReport, UpdateRequest};
pub use validate::{derived_problems, is_newer_spec, manifest_problems, state_problems};
pub use verify::{checkbox_findings, verify, Direction, Finding, FindingKind};

/// The engine's handle on plan folders: who writes (`updated_by`) and how long to wait
/// for another writer's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFiles {
    pub author: Author,
    pub lock: LockOptions,
}

impl PlanFiles {
    pub fn new(author: Author) -> PlanFiles {
        PlanFiles { author, lock: LockOptions::default() }
    }

    pub fn with_lock(self, lock: LockOptions) -> PlanFiles {
        PlanFiles { lock, ..self }
    }
}

impl Author {
    /// Preflight's executor, with the chat's model when known.
    pub fn preflight(model: Option<&str>) -> Author {
        Author { agent: "preflight".to_owned(), model: model.map(str::to_owned) }
    }
}

#[cfg(test)]
mod tests;
