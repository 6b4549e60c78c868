//! A chat in its own git worktree (DESIGN §18): chosen before the chat's first message,
//! shown with its branch and its diff against where it started, merged into the branch it
//! came from by the user's click (after a preview), kept as a branch, made again when its
//! folder vanished, removed with the chat.
//!
//! While a chat has a worktree its `workspace` is the worktree's folder, so every tool, the
//! sandbox, the gates, the checkpoints and the plan folder work there without knowing;
//! `Worktree::repository` is the user's checkout. The git work is `preflight-checkpoints`'s
//! `worktree` module, run on a blocking thread, one repository operation at a time.
//!
//! **Invariant:** nothing reaches the user's branches but `merge_chat` without `preview`;
//! every refusal (conflicts, the user's own changes, a folder gone) changes nothing, stored
//! or on disk.

use std::path::{Path, PathBuf};

use preflight_checkpoints::worktree::{self as git_worktree, MergePlan, Removal, WorktreeError};
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Chat, MergeMode, Worktree, WorktreeState, BRANCH_PREFIX};
use preflight_protocol::checkpoints::ChangeStat;
use preflight_protocol::ids::ChatId;
use serde::{Deserialize, Serialize};

use crate::lifecycle::chat_edit::ChatPatch;
use crate::lifecycle::chat_input::is_git_repository;
use crate::lifecycle::checkpoints::{diff_truncated, file_change, DiffTruncated, FileChange};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};

/// How much of a worktree's diff one answer carries.
const MAX_DIFF_BYTES: usize = 2 * 1024 * 1024;

/// One git operation on the users' repositories at a time: two chats' worktrees of one
/// repository share its refs and its `.git/worktrees`.
static GIT_TURN: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct MergeRequest {
    /// `merge` (a merge commit, the default) or `squash` (one commit).
    pub mode: Option<MergeMode>,
    /// Only say what the merge would do; nothing changes.
    pub preview: Option<bool>,
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
    /// The new commit on the base branch, once merged.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub commit: Option<String>,
    /// The chat as it stands after.
    pub chat: Chat,
}

impl Engine {
    /// `PATCH …{worktree}`: gives the chat its own worktree, or takes it away, before its
    /// first message; later, or in a folder that is not a git repository, it is refused.
    pub async fn set_chat_worktree(&self, chat_id: &ChatId, on: bool) -> Result<Chat, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        if on == chat.worktree.is_some() {
            return Ok(chat);
        }
        let started = self.inner.store.read(|tx| tx.last_message(chat_id))?.is_some();
        if started || self.inner.hub.is_turn_active(chat_id) {
            return Err(not_before_first_message());
        }
        match on {
            true => self.start_worktree(chat).await,
            false => self.drop_worktree(chat).await,
        }
    }

    /// Whether `patch` may give the chat a worktree: before its first message, in a git
    /// repository (the folder the patch sets, else the chat's).
    pub(super) fn worktree_possible(
        &self,
        chat_id: &ChatId,
        patch: &ChatPatch,
    ) -> Result<(), ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        if chat.worktree.is_some() {
            return Ok(());
        }
        if self.inner.store.read(|tx| tx.last_message(chat_id))?.is_some() {
            return Err(not_before_first_message());
        }
        let folder = match &patch.workspace {
            Some(folder) => folder.clone(),
            None => chat.workspace,
        };
        match folder {
            Some(folder) if is_git_repository(&folder) => Ok(()),
            Some(folder) => Err(ApiError::bad_request(format!(
                "{folder} is not a git repository: a chat gets its own worktree only of one"
            ))),
            None => Err(ApiError::bad_request("choose the chat's folder (a git repository) first")),
        }
    }

    /// Makes the chat's worktree of its workspace (a git repository) and stores it.
    pub(super) async fn start_worktree(&self, chat: Chat) -> Result<Chat, ApiError> {
        self.start_worktree_from(chat, None).await
    }

    /// The original's worktree files as they are now, as a commit no ref holds (a fork's
    /// own worktree starts there).
    pub(super) async fn worktree_snapshot(&self, original: &Worktree) -> Result<String, ApiError> {
        let (repo, path, _) = paths_of(original);
        let message = "The files of the chat a fork was made from".to_owned();
        on_git(move || git_worktree::snapshot_commit(&repo, &path, &message)).await
    }

    /// [`Engine::start_worktree`] from commit `from` (else the repository's HEAD).
    pub(super) async fn start_worktree_from(
        &self,
        chat: Chat,
        from: Option<String>,
    ) -> Result<Chat, ApiError> {
        let Some(repository) = chat.workspace.clone() else {
            return Err(ApiError::bad_request("a chat without a workspace has no worktree"));
        };
        let folder =
            git_worktree::folder_of(&self.inner.home, chat.id.as_str(), Path::new(&repository));
        let branch = format!("{BRANCH_PREFIX}{}", short_id(&chat.id));
        let (repo, at, name) = (PathBuf::from(&repository), folder.clone(), branch.clone());
        let started =
            on_git(move || git_worktree::start(&repo, &at, &name, from.as_deref())).await?;
        let worktree = Worktree {
            repository,
            path: folder.to_string_lossy().into_owned(),
            branch,
            base_branch: started.base_branch,
            base_commit: started.base_commit,
            state: WorktreeState::Active,
        };
        let stored = self
            .inner
            .store
            .write(|tx| tx.set_chat_worktree(&chat.id, Some(&worktree.path), Some(&worktree)));
        match stored {
            Ok(chat) => Ok(chat),
            Err(error) => {
                let _ = self.remove_worktree(&worktree, "").await;
                Err(error.into())
            }
        }
    }

    /// Takes the worktree away from a chat that has not begun: the folder and its branch go.
    async fn drop_worktree(&self, chat: Chat) -> Result<Chat, ApiError> {
        let Some(worktree) = chat.worktree.clone() else { return Ok(chat) };
        let chat = self
            .inner
            .store
            .write(|tx| tx.set_chat_worktree(&chat.id, Some(&worktree.repository), None))?;
        self.remove_worktree(&worktree, "").await?;
        Ok(chat)
    }

    /// `GET /v1/chats/{id}/worktree`.
    pub async fn worktree_view(&self, chat_id: &ChatId) -> Result<WorktreeView, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        let missing = worktree.has_folder() && !Path::new(&worktree.path).join(".git").exists();
        let mut view = WorktreeView {
            worktree: worktree.clone(),
            missing,
            stat: ChangeStat { files: 0, additions: 0, deletions: 0 },
            files: Vec::new(),
            truncated: None,
        };
        if missing || !worktree.has_folder() {
            return Ok(view);
        }
        let (repo, path, base) = paths_of(&worktree);
        let diff = on_git(move || git_worktree::diff(&repo, &path, &base, MAX_DIFF_BYTES)).await?;
        view.stat = stat_of(&diff);
        view.truncated = diff.truncated.map(diff_truncated);
        view.files = diff.files.into_iter().map(file_change).collect();
        Ok(view)
    }

    /// `POST /v1/chats/{id}/merge`: previews, or merges the chat's branch into the branch it
    /// came from. Not while a turn runs; every refusal changes nothing.
    pub async fn merge_chat(
        &self,
        chat_id: &ChatId,
        request: MergeRequest,
    ) -> Result<MergeOutcome, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        let preview = request.preview.unwrap_or(false);
        if !preview && self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        let mode = request.mode.unwrap_or(MergeMode::Merge);
        let message = self.commit_message(chat_id)?;
        let (repo, path, _) = paths_of(&worktree);
        let (branch, base) = (worktree.branch.clone(), worktree.base_branch.clone());
        let (text, squash) = (message.clone(), mode == MergeMode::Squash);
        let (seen, merged) = on_git(move || {
            let plan = MergePlan {
                repository: &repo,
                worktree: &path,
                branch: &branch,
                base_branch: base.as_deref(),
                squash,
                message: &text,
                max_diff_bytes: MAX_DIFF_BYTES,
            };
            let seen = git_worktree::preview(&plan)?;
            let merged = if preview { None } else { Some(git_worktree::merge(&plan)?) };
            Ok((seen, merged))
        })
        .await?;
        let chat = match &merged {
            Some(done) => {
                let state =
                    WorktreeState::Merged { commit: done.commit.clone(), mode, at: now_rfc3339() };
                self.store_worktree_state(chat_id, &worktree, state)?
            }
            None => self.inner.store.get_chat(chat_id)?,
        };
        Ok(MergeOutcome {
            merged: merged.is_some(),
            mode,
            base: seen.base.clone(),
            branch: worktree.branch.clone(),
            message,
            stat: stat_of(&seen.diff),
            truncated: seen.diff.truncated.map(diff_truncated),
            can_merge: seen.can_merge(),
            files: seen.diff.files.into_iter().map(file_change).collect(),
            conflicts: seen.conflicts,
            checkout_changed: seen.checkout_changed,
            nothing_to_merge: seen.nothing_to_merge,
            commit: merged.map(|done| done.commit),
            chat,
        })
    }

    /// `POST /v1/chats/{id}/worktree/keep`: commits the chat's work on its branch and removes
    /// the worktree folder, so the branch is the user's to check out. Not while a turn runs.
    pub async fn keep_chat_branch(&self, chat_id: &ChatId) -> Result<Chat, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        if self.inner.hub.is_turn_active(chat_id) {
            return Err(ApiError::turn_active());
        }
        if !worktree.has_folder() {
            return Ok(self.inner.store.get_chat(chat_id)?);
        }
        let message = self.commit_message(chat_id)?;
        let (repo, path, _) = paths_of(&worktree);
        let commit = on_git(move || git_worktree::keep(&repo, &path, &message)).await?;
        self.store_worktree_state(
            chat_id,
            &worktree,
            WorktreeState::Kept { commit, at: now_rfc3339() },
        )
    }

    /// `POST /v1/chats/{id}/worktree/recreate`: makes the worktree folder again from its
    /// branch (it vanished, or the chat was kept as a branch and goes on working).
    pub async fn recreate_worktree(&self, chat_id: &ChatId) -> Result<Chat, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        let present = Path::new(&worktree.path).join(".git").exists();
        if present && worktree.has_folder() {
            return Ok(self.inner.store.get_chat(chat_id)?);
        }
        let (repo, path, _) = paths_of(&worktree);
        let branch = worktree.branch.clone();
        on_git(move || git_worktree::recreate(&repo, &path, &branch)).await?;
        let state = match &worktree.state {
            WorktreeState::Kept { .. } => WorktreeState::Active,
            state => state.clone(),
        };
        self.store_worktree_state(chat_id, &worktree, state)
    }

    /// Removes a deleted chat's worktree: its work not merged is committed on its branch,
    /// which then stays (said in the log); a branch with nothing of its own, or merged,
    /// goes. Never fails the deletion.
    pub(super) async fn forget_worktree(&self, chat: &Chat) {
        let Some(worktree) = &chat.worktree else { return };
        let message = format!("Work left by the Preflight chat \"{}\"", chat.title);
        match self.remove_worktree(worktree, &message).await {
            Ok(true) => {
                tracing::info!(branch = %worktree.branch, "a deleted chat's branch is kept: it holds work not merged")
            }
            Ok(false) => {}
            Err(error) => {
                tracing::warn!(branch = %worktree.branch, error = %error.message, "a deleted chat's worktree could not be removed")
            }
        }
    }

    /// Removes the worktree; whether its branch stays.
    async fn remove_worktree(&self, worktree: &Worktree, message: &str) -> Result<bool, ApiError> {
        let (repo, path, base_commit) = paths_of(worktree);
        let branch = worktree.branch.clone();
        let merged_into = match (&worktree.state, &worktree.base_branch) {
            (WorktreeState::Merged { .. }, Some(base)) => Some(base.clone()),
            _ => None,
        };
        let message = message.to_owned();
        on_git(move || {
            let removal = Removal {
                branch: &branch,
                base_commit: &base_commit,
                merged_into: merged_into.as_deref(),
                message: &message,
            };
            git_worktree::remove(&repo, &path, &removal)
        })
        .await
    }

    fn worktree_of(&self, chat_id: &ChatId) -> Result<Worktree, ApiError> {
        self.inner.store.get_chat(chat_id)?.worktree.ok_or_else(|| {
            ApiError::bad_request("this chat works in its folder itself: it has no worktree")
        })
    }

    fn store_worktree_state(
        &self,
        chat_id: &ChatId,
        worktree: &Worktree,
        state: WorktreeState,
    ) -> Result<Chat, ApiError> {
        let worktree = Worktree { state, ..worktree.clone() };
        let workspace = match worktree.has_folder() {
            true => worktree.path.clone(),
            false => worktree.repository.clone(),
        };
        Ok(self
            .inner
            .store
            .write(|tx| tx.set_chat_worktree(chat_id, Some(&workspace), Some(&worktree)))?)
    }

    /// The commit message of the chat's work: the plan's title and the executor's summary
    /// when it finished, else the chat's title; Preflight's line naming the chat last.
    fn commit_message(&self, chat_id: &ChatId) -> Result<String, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let plan = self.inner.store.read(|tx| tx.latest_plan(chat_id))?;
        let state = self.inner.store.state(chat_id)?;
        let title =
            plan.map(|plan| plan.title).filter(|t| !t.trim().is_empty()).unwrap_or(chat.title);
        let mut message = title.trim().to_owned();
        if let Some(completion) = state.completion.filter(|c| !c.summary.trim().is_empty()) {
            message.push_str("\n\n");
            message.push_str(completion.summary.trim());
        }
        message.push_str(&format!("\n\nPreflight chat {chat_id}"));
        Ok(message)
    }
}

/// The error a turn gets in a chat whose worktree folder is gone (or was kept as a branch).
pub(super) fn unusable_worktree(chat: &Chat) -> Option<ApiError> {
    let worktree = chat.worktree.as_ref()?;
    let gone = !worktree.has_folder() || !Path::new(&worktree.path).join(".git").exists();
    gone.then(|| {
        ApiError::new(
            ErrorCode::WorktreeMissing,
            format!(
                "this chat's worktree folder {} is gone: recreate it from its branch {} to go on",
                worktree.path, worktree.branch
            ),
        )
    })
}

fn not_before_first_message() -> ApiError {
    ApiError::bad_request(
        "a chat's own worktree is chosen before its first message; start a new chat for one",
    )
}

fn paths_of(worktree: &Worktree) -> (PathBuf, PathBuf, String) {
    (
        PathBuf::from(&worktree.repository),
        PathBuf::from(&worktree.path),
        worktree.base_commit.clone(),
    )
}

/// The first 8 characters of the chat's id without its dashes: unique enough per repository,
/// and `start` refuses a branch that exists.
fn short_id(chat_id: &ChatId) -> String {
    chat_id.as_str().chars().filter(char::is_ascii_alphanumeric).take(8).collect()
}

fn stat_of(diff: &preflight_checkpoints::Diff) -> ChangeStat {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    ChangeStat {
        files: count(diff.changed_files()),
        additions: count(diff.additions),
        deletions: count(diff.deletions),
    }
}

/// Runs `work` on a blocking thread, one at a time; its failure as the API says it.
async fn on_git<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, WorktreeError> + Send + 'static,
) -> Result<T, ApiError> {
    let _turn = GIT_TURN.lock().await;
    match tokio::task::spawn_blocking(work).await {
        Ok(Ok(value)) => Ok(value),
        Ok(Err(error)) => Err(worktree_error(&error)),
        Err(_) => Err(ApiError::internal("the worktree task failed")),
    }
}

fn worktree_error(error: &WorktreeError) -> ApiError {
    let code = match error {
        WorktreeError::NotARepository(_) | WorktreeError::NoCommit(_) => ErrorCode::BadRequest,
        WorktreeError::BranchExists(_) | WorktreeError::FolderTaken(_) => ErrorCode::Worktree,
        WorktreeError::Missing { .. } => ErrorCode::WorktreeMissing,
        WorktreeError::Conflicts { .. } => ErrorCode::MergeConflicts,
        WorktreeError::CheckoutChanged { .. } => ErrorCode::CheckoutChanged,
        WorktreeError::Detached
        | WorktreeError::BaseGone(_)
        | WorktreeError::NothingToMerge { .. } => ErrorCode::MergeRefused,
        WorktreeError::Git(_) | WorktreeError::Io { .. } => ErrorCode::Worktree,
    };
    ApiError::new(code, error.to_string())
}
