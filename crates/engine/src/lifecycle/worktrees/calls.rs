//! The git calls on users' repositories as the engine makes them: on a blocking thread, one
//! at a time, their failures said as the API says them; and the small rules shared by the
//! worktree actions.

use std::path::{Path, PathBuf};

use preflight_checkpoints::worktree::WorktreeError;
use preflight_protocol::chat::{Chat, Worktree, WorktreeState};
use preflight_protocol::checkpoints::ChangeStat;
use preflight_protocol::ids::ChatId;

use crate::lifecycle::error::{ApiError, ErrorCode};

/// How much of a worktree's diff one answer carries.
pub(super) const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;

/// One git operation on the users' repositories at a time: two chats' worktrees of one
/// repository share its refs and its `.git/worktrees`.
static GIT_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// Runs `work` on a blocking thread, one at a time; its failure as the API says it. The
/// turn is held inside the blocking work, so a caller that goes away does not free it early.
pub(super) async fn on_git<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, WorktreeError> + Send + 'static,
) -> Result<T, ApiError> {
    let turn = GIT_TURN.lock().await;
    let ran = tokio::task::spawn_blocking(move || {
        let _turn = turn;
        work()
    });
    match ran.await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(worktree_error(&error)),
        Err(_) => Err(ApiError::internal("the worktree task failed")),
    }
}

pub(super) fn worktree_error(error: &WorktreeError) -> ApiError {
    let code = match error {
        WorktreeError::NotARepository(_) | WorktreeError::NoCommit(_) => ErrorCode::BadRequest,
        WorktreeError::Missing { .. } => ErrorCode::WorktreeMissing,
        WorktreeError::Conflicts { .. } => ErrorCode::MergeConflicts,
        WorktreeError::CheckoutChanged { .. } => ErrorCode::CheckoutChanged,
        WorktreeError::Detached
        | WorktreeError::BaseGone(_)
        | WorktreeError::BaseBusy(_)
        | WorktreeError::PreviewChanged
        | WorktreeError::NothingToMerge { .. } => ErrorCode::MergeRefused,
        WorktreeError::BranchExists(_)
        | WorktreeError::FolderTaken(_)
        | WorktreeError::GitTooOld(_)
        | WorktreeError::Git(_)
        | WorktreeError::Io { .. } => ErrorCode::Worktree,
    };
    ApiError::new(code, error.to_string())
}

/// The error a turn (or Merge, or Keep) gets in a chat whose worktree folder is gone, or
/// that was kept as a branch; `None` when its folder is there (or it has no worktree).
pub(crate) fn unusable_worktree(chat: &Chat) -> Option<ApiError> {
    let worktree = chat.worktree.as_ref()?;
    let message = match &worktree.state {
        WorktreeState::Kept { .. } => format!(
            "this chat's work was kept as the branch {} and its folder removed: recreate the \
             folder to go on working here",
            worktree.branch
        ),
        _ if !Path::new(&worktree.path).join(".git").exists() => format!(
            "this chat's worktree folder {} is gone: recreate it from its branch {} to go on",
            worktree.path, worktree.branch
        ),
        _ => return None,
    };
    Some(ApiError::new(ErrorCode::WorktreeMissing, message))
}

pub(super) fn not_before_first_message() -> ApiError {
    ApiError::bad_request(
        "a chat's own worktree is chosen before its first message; start a new chat for one",
    )
}

pub(super) fn paths_of(worktree: &Worktree) -> (PathBuf, PathBuf, String) {
    let (repository, path) = (PathBuf::from(&worktree.repository), PathBuf::from(&worktree.path));
    (repository, path, worktree.base_commit.clone())
}

/// The first 8 characters of the chat's id without its dashes: unique enough per repository,
/// and `start` refuses a branch that exists.
pub(super) fn short_id(chat_id: &ChatId) -> String {
    chat_id.as_str().chars().filter(char::is_ascii_alphanumeric).take(8).collect()
}

pub(super) fn stat_of(diff: &preflight_checkpoints::Diff) -> ChangeStat {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    ChangeStat {
        files: count(diff.changed_files()),
        additions: count(diff.additions),
        deletions: count(diff.deletions),
    }
}
