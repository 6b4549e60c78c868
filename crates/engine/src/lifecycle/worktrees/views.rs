//! What the API and the window read of a chat's worktree, and what Merge takes.

use preflight_protocol::chat::{Chat, MergeMode, Worktree};
use preflight_protocol::checkpoints::ChangeStat;
use serde::{Deserialize, Serialize};

use crate::lifecycle::checkpoints::{DiffTruncated, FileChange};

/// `GET /v1/chats/{id}/worktree`: the chat's worktree and its work so far.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct WorktreeView {
    pub worktree: Worktree,
    /// The folder is gone (deleted outside Preflight): `POST …/worktree/recreate`.
    pub missing: bool,
    /// The diff from where it started to its files now (none while missing or kept).
    pub stat: ChangeStat,
    pub files: Vec<FileChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub truncated: Option<DiffTruncated>,
}

/// `POST /v1/chats/{id}/merge`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct MergeRequest {
    /// `merge` (a merge commit, the default) or `squash` (one commit).
    pub mode: Option<MergeMode>,
    /// Only say what the merge would do; nothing changes.
    pub preview: Option<bool>,
    /// The `digest` of the preview the user saw: the merge is refused with
    /// `ERR_MERGE_REFUSED`, nothing changed, when what it would merge changed since.
    pub digest: Option<String>,
}

/// What a merge would do (`preview`) or did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct MergeOutcome {
    /// True once merged; false for a preview.
    pub merged: bool,
    pub mode: MergeMode,
    /// The branch merged into, and the chat's branch.
    pub base: String,
    pub branch: String,
    /// The commit message: the plan's title and its completion.
    pub message: String,
    /// What the merge changes (changed) in the base branch.
    pub stat: ChangeStat,
    pub files: Vec<FileChange>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub truncated: Option<DiffTruncated>,
    /// Files both sides changed differently: the merge is refused.
    pub conflicts: Vec<String>,
    /// Files the merge would write that the user changed in their checkout: refused.
    pub checkout_changed: Vec<String>,
    pub nothing_to_merge: bool,
    pub can_merge: bool,
    /// What this preview is of; send it back with the merge.
    pub digest: String,
    /// The new commit on the base branch, once merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub commit: Option<String>,
    /// The chat as it stands after.
    pub chat: Chat,
}
