//! A chat's worktree made and taken away: before its first message (the switch, or
//! `worktree` on create), from a commit for a fork, and removed with the chat.

use std::path::{Path, PathBuf};

use preflight_checkpoints::worktree::{self as git_worktree, Removal};
use preflight_protocol::chat::{Chat, Worktree, WorktreeState, BRANCH_PREFIX};
use preflight_protocol::ids::ChatId;

use super::calls::{not_before_first_message, on_git, paths_of, short_id};
use crate::lifecycle::chat_input::is_git_repository;
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::hub::TurnKind;

/// Where a new worktree starts: the repository's HEAD, or a commit with the base branch
/// it counts as coming from (a fork's: the original's).
#[derive(Debug, Clone, Default)]
pub(crate) struct StartAt {
    pub commit: Option<String>,
    pub base_branch: Option<Option<String>>,
}

impl Engine {
    /// `PATCH …{worktree}`: gives the chat its own worktree, or takes it away, before its
    /// first message; later, or in a folder that is not a git repository, it is refused. No
    /// turn starts while it is made.
    pub async fn set_chat_worktree(&self, chat_id: &ChatId, on: bool) -> Result<Chat, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        if on == chat.worktree.is_some() {
            return Ok(chat);
        }
        let guard = self.inner.hub.begin_turn(chat_id, TurnKind::Executor);
        let Some(_guard) = guard else { return Err(not_before_first_message()) };
        if self.inner.store.read(|tx| tx.last_message(chat_id))?.is_some() {
            return Err(not_before_first_message());
        }
        match on {
            true => self.start_worktree(chat, StartAt::default()).await,
            false => self.drop_worktree(chat).await,
        }
    }

    /// Whether a patch may give the chat a worktree: before its first message, in a git
    /// repository (`workspace`, the folder the patch sets, else the chat's).
    pub(crate) fn worktree_possible(
        &self,
        chat_id: &ChatId,
        workspace: Option<&Option<String>>,
    ) -> Result<(), ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        if chat.worktree.is_some() {
            return Ok(());
        }
        if self.inner.store.read(|tx| tx.last_message(chat_id))?.is_some() {
            return Err(not_before_first_message());
        }
        let folder = match workspace {
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

    /// The original's files as they are now, as a commit no ref holds (a fork's own worktree
    /// starts there): its worktree's, or its kept branch's.
    pub(crate) async fn worktree_snapshot(&self, original: &Worktree) -> Result<String, ApiError> {
        if let WorktreeState::Kept { commit, .. } = &original.state {
            return Ok(commit.clone());
        }
        let (repo, path, _) = paths_of(original);
        let message = "The files of the chat a fork was made from".to_owned();
        on_git(move || git_worktree::snapshot_commit(&repo, &path, &message)).await
    }

    /// Makes the chat's worktree of its workspace (a git repository) and stores it.
    pub(crate) async fn start_worktree(&self, chat: Chat, at: StartAt) -> Result<Chat, ApiError> {
        let Some(repository) = chat.workspace.clone() else {
            return Err(ApiError::bad_request("a chat without a workspace has no worktree"));
        };
        let folder =
            git_worktree::folder_of(&self.inner.home, chat.id.as_str(), Path::new(&repository));
        let branch = format!("{BRANCH_PREFIX}{}", short_id(&chat.id));
        let (repo, place, name) = (PathBuf::from(&repository), folder.clone(), branch.clone());
        let from = at.commit.clone();
        let started =
            on_git(move || git_worktree::start(&repo, &place, &name, from.as_deref())).await?;
        let worktree = Worktree {
            repository,
            path: folder.to_string_lossy().into_owned(),
            branch,
            base_branch: at.base_branch.unwrap_or(started.base_branch),
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

    /// Takes the worktree away from a chat that has not begun: the folder and its branch go
    /// first, then the record (a failure leaves the chat as it was).
    async fn drop_worktree(&self, chat: Chat) -> Result<Chat, ApiError> {
        let Some(worktree) = chat.worktree.clone() else { return Ok(chat) };
        self.remove_worktree(&worktree, "").await?;
        let repository = Some(worktree.repository.as_str());
        Ok(self.inner.store.write(|tx| tx.set_chat_worktree(&chat.id, repository, None))?)
    }

    /// Removes a chat's worktree before the chat is deleted: its work not merged is committed
    /// on its branch, which then stays; a branch with nothing of its own, or merged, goes. A
    /// failure refuses the deletion (the work would be left in a folder nobody lists) unless
    /// the repository itself is gone, when the folder is simply removed.
    pub(crate) async fn forget_worktree(&self, chat: &Chat) -> Result<(), ApiError> {
        let Some(worktree) = &chat.worktree else { return Ok(()) };
        let message = format!("Work left by the Preflight chat \"{}\"", chat.title);
        match self.remove_worktree(worktree, &message).await {
            Ok(kept) => {
                if kept {
                    tracing::info!(branch = %worktree.branch, "a deleted chat's branch stays: it holds work not merged");
                }
                Ok(())
            }
            Err(_) if !Path::new(&worktree.repository).join(".git").exists() => {
                let _ = std::fs::remove_dir_all(&worktree.path);
                Ok(())
            }
            Err(error) => Err(error),
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
}
