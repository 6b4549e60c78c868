//! Checkpoints of a workspace folder, kept in a shadow git repository outside it: take one
//! (`ShadowRepo::snapshot`), compare two (`diff`, `stat`), put the folder back to one
//! (`restore_plan`, `restore`), copy one into another folder (`copy_out`), and let old ones go
//! (`forget`).
//!
//! **Why the `git` program, not a git library (gix, git2):** it is on every machine Preflight
//! targets; its index keeps each file's stat data, so a checkpoint of a large unchanged tree
//! stats the files and hashes only what changed (peers that hash or copy the whole tree pay
//! seconds per turn on a large repository); and it honours `.gitignore` exactly as the user's
//! own git does, so a checkpoint holds what the user would commit. Needs git 2.32 or later
//! (`GIT_CONFIG_GLOBAL`, `repack --geometric`).
//!
//! **The user's repository is never touched.** Every call names the shadow repository, the
//! work tree and the index explicitly, clears the environment, and pins the settings that
//! could run a program (hooks, fsmonitor, filters): the workspace's own `.git` — its index,
//! refs, stash, config and hooks — is neither read for writing nor written, and nothing the
//! workspace contains is run (`git.rs`).
//!
//! **Its one exception is `worktree`** (DESIGN §18): a chat's own git worktree of the user's
//! repository, on a branch of its own. It reads the repository's configuration (not the
//! user's global one), pins the same settings off, and moves none of the user's branches but
//! by `worktree::merge`, which the user's click calls.
//!
//! **A checkpoint is of one folder.** Its commit names the folder it was taken of; one of
//! another folder (the caller's workspace moved) is neither restored nor compared
//! (`OtherFolder`). `.git`, `.sandbox/` and `.dwp/` are never kept, whatever `.gitignore`
//! says (`kept_out.rs`), and a restore does what its preview showed or nothing
//! (`RestorePlan::digest`, `PlanChanged`).
//!
//! **Costs stay bounded.** A file over `Limits::max_file_bytes` and the content past
//! `Limits::max_checkpoint_bytes` are left out and reported (`Snapshot::skipped`); a diff
//! returns at most `Limits::max_diff_bytes` (`Diff::truncated`); every operation has a time
//! budget after which its running git call is killed (`TimedOut`); checkpoints are
//! parentless commits each held by its own ref, so `forget` frees exactly what no kept
//! checkpoint shares.
//!
//! **Boundary:** blocking I/O and child processes, no async and no engine types: the engine
//! calls this on a blocking thread and keeps its own record of which checkpoint is which.
//! One operation that writes (snapshot, restore, forget) at a time per repository; reads
//! (diff, stat, restore_plan) may run beside them.

mod commit;
mod copy_out;
mod current;
mod diff;
mod error;
mod git;
mod kept_out;
mod patch;
mod place;
mod plan;
mod raw;
mod repo;
mod restore;
mod snapshot;
mod stage;
pub mod worktree;

pub use diff::{Diff, DiffStat, FileDiff, FileStatus, Truncated};
pub use error::CheckpointError;
pub use plan::RestorePlan;
pub use repo::{Limits, ShadowRepo};
pub use restore::RestoreReport;
pub use snapshot::Snapshot;
pub use stage::{SkipReason, Skipped};
