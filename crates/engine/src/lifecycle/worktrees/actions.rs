//! What the user does with a chat's worktree: see its diff, Merge (with its preview), Keep
//! as branch, Recreate its folder.
//!
//! **Invariant:** Merge, Keep and Recreate hold the chat's turn while they work (no turn
//! starts in a worktree being merged or removed) and run as a task of their own, so the git
//! work and the record of it finish together even when the request that asked goes away.

use std::path::Path;

use futures_util::future::BoxFuture;
use preflight_checkpoints::worktree::{self as git_worktree, MergePlan};
use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Chat, MergeMode, Worktree, WorktreeState};
use preflight_protocol::checkpoints::ChangeStat;
use preflight_protocol::ids::ChatId;

use super::calls::{on_git, paths_of, stat_of, unusable_worktree, MAX_DIFF_BYTES};
use super::views::{MergeOutcome, MergeRequest, WorktreeView};
use crate::lifecycle::checkpoints::{diff_truncated, file_change};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::hub::TurnKind;

impl Engine {
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
    /// came from (refused when `digest` names another preview). Every refusal changes nothing.
    pub async fn merge_chat(
        &self,
        chat_id: &ChatId,
        request: MergeRequest,
    ) -> Result<MergeOutcome, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let worktree = self.worktree_of(chat_id)?;
        if let Some(unusable) = unusable_worktree(&chat) {
            return Err(unusable);
        }
        if request.preview.unwrap_or(false) {
            return self.merge_now(chat_id.clone(), worktree, request).await;
        }
        let id = chat_id.clone();
        self.as_action(chat_id, move |engine| {
            Box::pin(async move { engine.merge_now(id, worktree, request).await })
        })
        .await
    }

    /// The preview, and the merge unless only the preview was asked for.
    async fn merge_now(
        &self,
        chat_id: ChatId,
        worktree: Worktree,
        request: MergeRequest,
    ) -> Result<MergeOutcome, ApiError> {
        let preview = request.preview.unwrap_or(false);
        let mode = request.mode.unwrap_or(MergeMode::Merge);
        let message = self.commit_message(&chat_id)?;
        let (repo, path, _) = paths_of(&worktree);
        let (branch, base) = (worktree.branch.clone(), worktree.base_branch.clone());
        let (text, squash, expect) = (message.clone(), mode == MergeMode::Squash, request.digest);
        let (seen, merged) = on_git(move || {
            let plan = MergePlan {
                repository: &repo,
                worktree: &path,
                branch: &branch,
                base_branch: base.as_deref(),
                squash,
                message: &text,
                max_diff_bytes: MAX_DIFF_BYTES,
                expect: expect.as_deref(),
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
                self.store_worktree_state(&chat_id, &worktree, state)?
            }
            None => self.inner.store.get_chat(&chat_id)?,
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
            digest: seen.digest,
            commit: merged.map(|done| done.commit),
            chat,
        })
    }

    /// `POST /v1/chats/{id}/worktree/keep`: commits the chat's work on its branch and removes
    /// the worktree folder, so the branch is the user's to check out.
    pub async fn keep_chat_branch(&self, chat_id: &ChatId) -> Result<Chat, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        if !worktree.has_folder() {
            return Ok(self.inner.store.get_chat(chat_id)?);
        }
        let chat = self.inner.store.get_chat(chat_id)?;
        if let Some(unusable) = unusable_worktree(&chat) {
            return Err(unusable);
        }
        let message = self.commit_message(chat_id)?;
        let id = chat_id.clone();
        self.as_action(chat_id, move |engine| {
            Box::pin(async move {
                let (repo, path, _) = paths_of(&worktree);
                let commit = on_git(move || git_worktree::keep(&repo, &path, &message)).await?;
                let state = WorktreeState::Kept { commit, at: now_rfc3339() };
                engine.store_worktree_state(&id, &worktree, state)
            })
        })
        .await
    }

    /// `POST /v1/chats/{id}/worktree/recreate`: makes the worktree folder again from its
    /// branch (it vanished, or the chat was kept as a branch and goes on working).
    pub async fn recreate_worktree(&self, chat_id: &ChatId) -> Result<Chat, ApiError> {
        let worktree = self.worktree_of(chat_id)?;
        let present = Path::new(&worktree.path).join(".git").exists();
        if present && worktree.has_folder() {
            return Ok(self.inner.store.get_chat(chat_id)?);
        }
        let id = chat_id.clone();
        self.as_action(chat_id, move |engine| {
            Box::pin(async move {
                let (repo, path, _) = paths_of(&worktree);
                let branch = worktree.branch.clone();
                on_git(move || git_worktree::recreate(&repo, &path, &branch)).await?;
                let state = match &worktree.state {
                    WorktreeState::Kept { .. } => WorktreeState::Active,
                    state => state.clone(),
                };
                engine.store_worktree_state(&id, &worktree, state)
            })
        })
        .await
    }

    /// Runs `work` holding the chat's turn, as a task of its own.
    async fn as_action<T: Send + 'static>(
        &self,
        chat_id: &ChatId,
        work: impl FnOnce(Engine) -> BoxFuture<'static, Result<T, ApiError>> + Send + 'static,
    ) -> Result<T, ApiError> {
        let guard = self.inner.hub.begin_turn(chat_id, TurnKind::Executor);
        let guard = guard.ok_or_else(ApiError::turn_active)?;
        let engine = self.clone();
        let task = self.inner.tasks.spawn(async move {
            let _turn = guard;
            work(engine).await
        });
        task.await.unwrap_or_else(|_| Err(ApiError::internal("the worktree action failed")))
    }

    fn worktree_of(&self, chat_id: &ChatId) -> Result<Worktree, ApiError> {
        self.inner.store.get_chat(chat_id)?.worktree.ok_or_else(|| {
            let words = "this chat works in its folder itself: it has no worktree of its own";
            ApiError::new(ErrorCode::NoWorktree, words)
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
        let workspace = Some(workspace.as_str());
        Ok(self
            .inner
            .store
            .write(|tx| tx.set_chat_worktree(chat_id, workspace, Some(&worktree)))?)
    }

    /// The commit message of the chat's work: the plan's title and the executor's summary
    /// when it finished, else the chat's title; Preflight's line naming the chat last.
    fn commit_message(&self, chat_id: &ChatId) -> Result<String, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let plan = self.inner.store.read(|tx| tx.latest_plan(chat_id))?;
        let state = self.inner.store.state(chat_id)?;
        let title = plan.map(|plan| plan.title).filter(|t| !t.trim().is_empty());
        let mut message = title.unwrap_or(chat.title).trim().to_owned();
        if let Some(completion) = state.completion.filter(|c| !c.summary.trim().is_empty()) {
            message.push_str("\n\n");
            message.push_str(completion.summary.trim());
        }
        message.push_str(&format!("\n\nPreflight chat {chat_id}"));
        Ok(message)
    }
}
