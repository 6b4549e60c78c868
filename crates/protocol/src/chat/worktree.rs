//! A chat's own git worktree (DESIGN §18): where it works when it does not work in the
//! user's checkout, the branch it works on, and what became of that branch.

use serde::{Deserialize, Serialize};

/// The branch prefix of every chat's worktree branch (`preflight/<short chat id>`).
pub const BRANCH_PREFIX: &str = "preflight/";

/// A chat's worktree. While it has one, the chat's `workspace` is the worktree's folder
/// (under `$PREFLIGHT_HOME/worktrees/`): every tool, the sandbox, the gates, the checkpoints
/// and the plan folder work there; `repository` is the user's checkout it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Worktree {
    /// The user's repository (its top folder), the folder the user chose for the chat.
    pub repository: String,
    /// The worktree's folder.
    pub path: String,
    /// `preflight/<short chat id>`.
    pub branch: String,
    /// The branch the worktree started from, which Merge merges into; absent when the
    /// repository's HEAD was detached (such a chat can only be kept as a branch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub base_branch: Option<String>,
    /// The commit the worktree started from: what the chat's diff is against.
    pub base_commit: String,
    pub state: WorktreeState,
}

/// What became of a chat's worktree branch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum WorktreeState {
    /// The chat works in it; nothing of it is in the user's branches.
    Active,
    /// Merged into `base_branch` by the user's click (the chat may go on working there
    /// and be merged again).
    Merged { commit: String, mode: MergeMode, at: String },
    /// Left as a branch for the user's own git: its work committed on `branch`, the
    /// worktree folder removed (Recreate brings it back to go on working).
    Kept { commit: String, at: String },
}

/// How Merge brings the branch in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum MergeMode {
    /// A merge commit with the branch as its second parent.
    Merge,
    /// One new commit on the base branch with all of the branch's changes.
    Squash,
}

impl Worktree {
    /// Whether the chat has its worktree folder (it is not kept as a branch only).
    pub fn has_folder(&self) -> bool {
        !matches!(self.state, WorktreeState::Kept { .. })
    }
}
