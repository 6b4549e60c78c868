//! The plan projection of seed 002 (DESIGN §6): an approved plan as files in the workspace,
//! `.dwp/plans/PLAN_<slug>/` with README.md (the human source of truth), PROGRESS.md (the
//! narrative log), `manifest.json` (written once) and `state.json` (rewritten at each
//! protocol point), plus the guarded updater and the verifier the CLI exposes.
//!
//! Two halves, and only `disk` may touch a file:
//! - `rules/`: pure functions over the documents — their types, structural checks, the
//!   evidence rule, transitions, reconciliation, README and PROGRESS text, the verifier's
//!   findings, the tracker-to-state mapping. They fail only with a [`Refusal`].
//! - `disk/`: the plan folder, the lock, the two-phase commit of one protocol point, the
//!   guarded write session, materialisation, the verifier's read of a folder. They fail
//!   with a [`DwpError`].
//!
//! The crate knows nothing of the engine: the engine hands in a [`PlanInput`] and
//! [`TrackedTask`]s (`input.rs`). Every `PlanFiles` method blocks (file I/O, and up to
//! `LockOptions::wait` for another writer): call it off the async runtime.

mod disk;
mod input;
mod rules;

#[cfg(test)]
mod tests;

pub use disk::audit::{verify_plan, VerifyReport};
pub use disk::error::DwpError;
pub use disk::folder::{read_state, PlanDir, StateSnapshot};
pub use disk::lock::LockOptions;
pub use disk::protocol::{changes_for, SyncReport};
pub use disk::request::{UpdateAction, UpdateReport, UpdateRequest};
pub use input::{
    DropSettled, LibraryInput, PlanApproval, PlanInput, StepInput, TrackedStatus, TrackedTask,
};
pub use rules::documents::{
    ApprovalState, Author, Blocked, Checkpoint, GateRecord, Locator, LocatorKind, Outcome,
    PlanState, Status, TaskBlock, TaskEntry,
};
pub use rules::evidence::{check_done, DoneRefusal, GateInput};
pub use rules::findings::{Direction, Finding, FindingKind};
pub use rules::refusal::Refusal;
pub use rules::tracker::DROP_NEEDS;
pub use rules::transition::{apply, Applied, Change, MAX_NOTE_CHARS, MAX_TITLE_CHARS};

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

/// The current time, RFC 3339 in UTC with milliseconds (as the engine stamps it).
pub fn now_rfc3339() -> String {
    use time::format_description::well_known::Rfc3339;
    let now = time::OffsetDateTime::now_utc();
    let millis = now.replace_nanosecond(now.millisecond() as u32 * 1_000_000).unwrap_or(now);
    millis.format(&Rfc3339).unwrap_or_else(|_| now.unix_timestamp().to_string())
}
