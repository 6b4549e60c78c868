//! Fork (DESIGN §15): a new chat holding the original as it stood at one of its messages or
//! checkpoints (or all of it), which then goes its own way; the original is never changed.
//!
//! A fork is an import of the original cut at a point (`fork/cut.rs`), read and stored in
//! one transaction, so it is one state of the original even while the original's turn runs
//! (allowed: it copies what is stored). The fork never starts mid-turn: a turn running at
//! the point is settled as a restart settles it (`recovery.rs`): a planner's as stopped, the
//! executor's stopped (`forked`) with Continue when tasks are left. Nothing runs in the
//! fork until the user acts.
//!
//! Its files: at a checkpoint with a folder the user chose (absent or empty), the
//! checkpoint's files are written there and it is the fork's workspace; otherwise the fork
//! shares the original's workspace. Either way the fork says so in a message of Preflight's
//! at its end (`ForkedFrom::notice_id`), and the chat records where it came from
//! (`Chat::forked_from`). Attachments of the messages it holds are copied along.

mod cut;
mod files;
mod reading;

use std::path::PathBuf;

use preflight_dwp::now_rfc3339;
use preflight_protocol::chat::{Chat, ChatSettings, ForkFiles, ForkedFrom, Message, Phase};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::tasks::StopReason;
use preflight_store::Tx;
use serde::Deserialize;

use self::files::{copy_attachments, copy_checkpoint, CopyFrom, WorkspaceCopy};
use self::reading::Cut;
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::messages::assistant_message;
use crate::lifecycle::recovery::settle_execution;
use crate::lifecycle::view::ChatView;
use crate::lifecycle::worktrees::StartAt;

/// `POST /v1/chats/{id}/fork`: where to fork, and where a checkpoint's files go.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct ForkRequest {
    /// The message to fork at: the fork holds the conversation up to and including it (a
    /// round of the executor whole). Absent, with no checkpoint: all of it.
    pub message_id: Option<MessageId>,
    /// The checkpoint (its number `n`) to fork at: the conversation as it stood when the
    /// checkpoint was taken, with its task list. Not with `message_id`.
    #[cfg_attr(feature = "openapi", schema(minimum = 1))]
    pub checkpoint_id: Option<u32>,
    /// With `checkpoint_id`: an absolute path to a folder, absent or empty, that gets the
    /// checkpoint's files and becomes the fork's workspace. Absent: the fork shares the
    /// original's workspace.
    pub workspace: Option<String>,
}

impl Engine {
    /// Forks the chat as `request` says and returns the fork's view. Unknown chat:
    /// `ERR_NOT_FOUND`; a message or checkpoint not of this chat, or a folder that is not
    /// absent or empty: `ERR_BAD_REQUEST`, and nothing is stored or written.
    pub async fn fork_chat(
        &self,
        chat_id: &ChatId,
        request: ForkRequest,
    ) -> Result<ChatView, ApiError> {
        let original = self.inner.store.get_chat(chat_id)?;
        let cut = cut_of(&request)?;
        let copy = match (&request.workspace, &cut) {
            (Some(folder), Cut::Checkpoint(n)) => {
                Some(self.copy_workspace(&original, *n, folder.clone()).await?)
            }
            _ => None,
        };
        // A worktree chat's fork gets a worktree of its own, from the original's files now.
        let own = match (&copy, &original.worktree) {
            (None, Some(worktree)) => {
                let at = StartAt {
                    commit: Some(self.worktree_snapshot(worktree).await?),
                    base_branch: Some(worktree.base_branch.clone()),
                };
                Some((worktree.repository.clone(), at))
            }
            _ => None,
        };
        let repository = own.as_ref().map(|(repository, _)| repository.as_str());
        let (fork, messages) = match self.store_fork(&original, &cut, copy.as_ref(), repository) {
            Ok(stored) => stored,
            Err(error) => {
                copy.as_ref().map(WorkspaceCopy::remove);
                return Err(error);
            }
        };
        let (home, from, to) = (self.inner.home.clone(), original.id.clone(), fork.id.clone());
        let copied =
            tokio::task::spawn_blocking(move || copy_attachments(&home, &from, &to, &messages))
                .await
                .unwrap_or_else(|_| Err(ApiError::internal("the attachments' copy failed")));
        if let Err(error) = copied {
            // Taken back whole; a fork that cannot be is said in the log (it stays listed).
            if let Err(kept) = self.delete_chat(&fork.id).await {
                tracing::error!(fork = %fork.id, error = ?kept, "a fork without its attachments could not be deleted");
            }
            copy.as_ref().map(WorkspaceCopy::remove);
            return Err(error);
        }
        if let Some((_, at)) = own {
            if let Err(error) = self.start_worktree(fork.clone(), at).await {
                // Taken back whole: a fork of a worktree chat never shares its folder.
                let _ = self.delete_chat(&fork.id).await;
                return Err(error);
            }
        }
        self.chat_view(&fork.id)
    }

    /// Writes checkpoint `n`'s files into `folder` (on a blocking thread).
    async fn copy_workspace(
        &self,
        original: &Chat,
        n: u32,
        folder: String,
    ) -> Result<WorkspaceCopy, ApiError> {
        let checkpoint = self.inner.store.checkpoint(&original.id, n)?.ok_or_else(|| {
            ApiError::bad_request(format!("chat {} has no checkpoint {n}", original.id))
        })?;
        let workspace = original.workspace.clone().ok_or_else(|| {
            ApiError::bad_request("the chat has no workspace, so no checkpoint files")
        })?;
        let from = CopyFrom {
            home: self.inner.home.clone(),
            chat_id: original.id.clone(),
            workspace: PathBuf::from(workspace),
            commit: checkpoint.commit,
        };
        tokio::task::spawn_blocking(move || copy_checkpoint(&from, &folder))
            .await
            .unwrap_or_else(|_| Err(ApiError::internal("the checkpoint's copy failed")))
    }

    /// Reads the original at the cut and stores the fork, in one transaction. Returns the
    /// fork and its messages as stored.
    fn store_fork(
        &self,
        original: &Chat,
        cut: &Cut,
        copy: Option<&WorkspaceCopy>,
        own_worktree_of: Option<&str>,
    ) -> Result<(Chat, Vec<Message>), ApiError> {
        let now = now_rfc3339();
        let stored = self.inner.store.write(|tx| {
            let source = match reading::source(tx, &original.id, cut) {
                Ok(source) => source,
                // Refused before anything was written: the transaction commits nothing.
                Err(error) => return Ok(Err(error)),
            };
            let settings = ChatSettings {
                title: original.title.clone(),
                workspace: copy
                    .map(|copy| copy.folder.clone())
                    .or(own_worktree_of.map(str::to_owned))
                    .or(original.workspace.clone()),
                plan_mode: original.plan_mode,
                auto_approve: original.auto_approve,
                save_plans: original.save_plans,
                scope: original.scope.clone(),
            };
            let import = cut::forked(source, settings, &now);
            let chat = tx.import_chat(&import)?;
            settle(tx, &chat.id, import.phase)?;
            let forked_from = told(tx, &chat.id, original, cut, (copy, own_worktree_of))?;
            Ok(Ok((tx.set_forked_from(&chat.id, &forked_from)?, import.messages)))
        });
        stored?
    }
}

/// The request's cut; a message and a checkpoint at once, or a folder without a checkpoint,
/// are refused.
fn cut_of(request: &ForkRequest) -> Result<Cut, ApiError> {
    match (&request.message_id, request.checkpoint_id, &request.workspace) {
        (Some(_), Some(_), _) => {
            Err(ApiError::bad_request("fork at a message or at a checkpoint, not both"))
        }
        (_, None, Some(_)) => Err(ApiError::bad_request(
            "a workspace folder goes with a checkpoint_id: its files are what it gets",
        )),
        (Some(message_id), None, None) => Ok(Cut::Message(message_id.clone())),
        (None, Some(n), _) => Ok(Cut::Checkpoint(n)),
        (None, None, None) => Ok(Cut::Whole),
    }
}

/// A turn the cut caught running, settled: the fork never starts mid-turn.
fn settle(
    tx: &mut Tx<'_>,
    chat_id: &ChatId,
    phase: Phase,
) -> Result<(), preflight_store::StoreError> {
    match phase {
        Phase::Planning => drop(tx.settle_interrupted_planning(chat_id)?),
        Phase::Executing => settle_execution(tx, chat_id, StopReason::Forked)?,
        Phase::Questions | Phase::AwaitingApproval | Phase::Idle => {}
    }
    Ok(())
}

/// Where the fork came from, with what became of the files said in a message of
/// Preflight's at the fork's end (none without a workspace).
fn told(
    tx: &mut Tx<'_>,
    chat_id: &ChatId,
    original: &Chat,
    cut: &Cut,
    (copy, own_worktree_of): (Option<&WorkspaceCopy>, Option<&str>),
) -> Result<ForkedFrom, preflight_store::StoreError> {
    let files = match (copy, &original.workspace) {
        (Some(copy), _) => Some(ForkFiles::Copied {
            workspace: copy.folder.clone(),
            files: u32::try_from(copy.files).unwrap_or(u32::MAX),
        }),
        (None, _) if own_worktree_of.is_some() => {
            Some(ForkFiles::Worktree { repository: own_worktree_of.unwrap_or_default().to_owned() })
        }
        (None, Some(workspace)) => Some(ForkFiles::Shared { workspace: workspace.clone() }),
        (None, None) => None,
    };
    let checkpoint_id = match cut {
        Cut::Checkpoint(n) => Some(*n),
        _ => None,
    };
    let notice_id = match &files {
        Some(files) => {
            let notice = assistant_message(files_text(&original.title, checkpoint_id, files), None);
            tx.insert_message(chat_id, &notice)?;
            Some(notice.id)
        }
        None => None,
    };
    Ok(ForkedFrom {
        chat_id: original.id.clone(),
        title: original.title.clone(),
        message_id: match cut {
            Cut::Message(id) => Some(id.clone()),
            _ => None,
        },
        checkpoint_id,
        files,
        notice_id,
    })
}

/// What became of the files, in words: the message's content (the model reads it, and so do
/// the API's readers; the window says it in its user's language).
fn files_text(title: &str, checkpoint: Option<u32>, files: &ForkFiles) -> String {
    let at = checkpoint.map(|n| format!(" at checkpoint {n}")).unwrap_or_default();
    let from = format!("This chat is a fork of “{title}”{at}.");
    match (files, checkpoint) {
        (ForkFiles::Copied { workspace, files }, _) => format!(
            "{from} Its workspace is {workspace}: a copy of that checkpoint's files ({files} \
             files), made for this fork. The workspace of “{title}” was not touched."
        ),
        (ForkFiles::Shared { workspace }, Some(n)) => format!(
            "{from} It shares the workspace {workspace} with “{title}”: the files there are as \
             that chat left them, not as they were at checkpoint {n}, and what either chat \
             changes there, the other sees."
        ),
        (ForkFiles::Shared { workspace }, None) => format!(
            "{from} It shares the workspace {workspace} with “{title}”: what either chat changes \
             there, the other sees."
        ),
        (ForkFiles::Worktree { repository }, _) => format!(
            "{from} It works in a worktree of its own of {repository}, on its own branch, made \
             from the files of “{title}” as they were when it was forked: what either chat \
             changes, the other does not see."
        ),
    }
}
