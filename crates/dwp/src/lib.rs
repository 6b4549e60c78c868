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
//!   guarded write session, materialisation, the verifier's read of a folder, the migration
//!   of a v1 folder at its first write. They fail with a [`DwpError`].
//!
//! The crate knows nothing of the engine: the engine hands in a [`PlanInput`] and
//! [`TrackedTask`]s (`rules/input.rs`). Every `PlanFolderWriter` method blocks (file I/O, and up to
//! `LockOptions::wait` for another writer): call it off the async runtime.

mod clock;
mod disk;
mod rules;

#[cfg(test)]
mod tests;

pub use clock::now_rfc3339;
pub use disk::audit::{verify_plan, VerifyReport};
pub use disk::error::DwpError;
pub use disk::finalize::FinalizeReport;
pub use disk::folder::{read_state, PlanFolder, StateSnapshot};
pub use disk::lock::LockOptions;
pub use disk::outcomes::{finished_outcomes, OutcomeRecords};
pub use disk::plan_files::PlanFolderWriter;
pub use disk::protocol::{changes_for, PauseInput, SyncReport};
pub use disk::request::{UpdateAction, UpdateReport, UpdateRequest};
pub use rules::documents::{
    Acceptance, AmendKind, Amendment, ApprovalState, Author, Authority, Blocked, Checkpoint,
    GateRecord, Locator, LocatorKind, Outcome, Pause, PlanState, Status, Superseded, TaskBlock,
    TaskEntry, Verification,
};
pub use rules::evidence::{check_done, DoneRefusal, GateInput};
pub use rules::finalization::{Finalization, Rerun, Verdict};
pub use rules::findings::{Direction, Finding, FindingKind};
pub use rules::input::{
    AmendmentInput, Complexity, DropSettled, LibraryInput, PlanApproval, PlanInput,
    PlannedFilesInput, StepInput, TrackedStatus, TrackedTask,
};
pub use rules::refusal::Refusal;
pub use rules::task_helpers::{MAX_NOTE_CHARS, MAX_TITLE_CHARS};
pub use rules::tracker::{Planned, DROP_NEEDS};
pub use rules::transition::{apply, Applied, Change};
