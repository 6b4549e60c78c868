//! A chat in its own git worktree (DESIGN §18): chosen before the chat's first message,
//! shown with its branch and its diff against where it started, merged into the branch it
//! came from by the user's click (after a preview), kept as a branch, made again when its
//! folder vanished, removed with the chat.
//!
//! While a chat has a worktree its `workspace` is the worktree's folder, so every tool, the
//! sandbox, the gates, the checkpoints and the plan folder work there without knowing;
//! `Worktree::repository` is the user's checkout. The git work is `preflight-checkpoints`'s
//! `worktree` module, run on a blocking thread, one repository operation at a time
//! (`calls.rs`). `start.rs` makes and removes worktrees, `actions.rs` is what the user does
//! with one, `views.rs` what the API reads and takes.
//!
//! **Invariant:** nothing reaches the user's branches but `merge_chat` without `preview`;
//! every refusal (conflicts, the user's own changes, a preview that no longer holds, a
//! folder gone) changes nothing, stored or on disk.

mod actions;
mod calls;
mod start;
mod views;

pub(crate) use calls::unusable_worktree;
pub(crate) use start::StartAt;
pub use views::{MergeOutcome, MergeRequest, WorktreeView};
