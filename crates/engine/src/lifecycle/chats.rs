//! Chats as the user manages them: create, list, show, delete; the task list's own routes.
use preflight_agent::checkpoints::shadow_dir;
use preflight_agent::events::Event;
use preflight_agent::WorkChange;
use preflight_protocol::chat::{Chat, ChatSettings, ModelChoice};
use preflight_protocol::ids::{ChatId, MessageId};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{Task, TaskList};
use tokio_util::sync::CancellationToken;

use crate::lifecycle::attachments::attachments_dir;
use crate::lifecycle::chat_input::{
    checked_scope, checked_title, checked_workspace, is_git_repository,
};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::providers::Role;
use crate::lifecycle::unconfined::chat_notice;
use crate::lifecycle::view::{ChatView, StateView};
use crate::lifecycle::worktrees::StartAt;

/// The title of a chat created without one, until its first message names it.
pub const DEFAULT_TITLE: &str = "New chat";

/// `POST /v1/chats`: unset fields take the defaults of `config.toml`.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "ts", ts(optional_fields))]
#[serde(deny_unknown_fields)]
pub struct NewChat {
    // At most `MAX_TITLE_CHARS` (200) characters, as when renaming; blank or absent: "New chat".
    #[cfg_attr(feature = "openapi", schema(max_length = 200))]
    pub title: Option<String>,
    pub workspace: Option<String>,
    pub plan_mode: Option<bool>,
    pub auto_approve: Option<bool>,
    pub save_plans: Option<bool>,
    // Folders or files inside the workspace that planning is limited to (DESIGN §14).
    #[cfg_attr(feature = "openapi", schema(max_items = 20))]
    pub scope: Option<Vec<String>>,
    // The executor's model (DESIGN §15); absent or null: the configured default.
    pub model: Option<ModelChoice>,
    // The planner's model; absent or null: `[planner]`, else the configured default.
    pub planner_model: Option<ModelChoice>,
    // Work in a git worktree of its own (DESIGN §18); absent: `[workspace] worktrees` when
    // the workspace is a git repository. `true` in a folder that is none is refused.
    pub worktree: Option<bool>,
}

impl Engine {
    /// `POST /v1/chats` from an adapter: a chosen model's server asked first when the
    /// model is not known yet (see `model_switch.rs`).
    pub async fn new_chat(&self, request: NewChat) -> Result<Chat, ApiError> {
        self.ensure_known(&[request.model.as_ref(), request.planner_model.as_ref()]).await?;
        let wanted = request.worktree;
        let chat = self.create_chat(request)?;
        let default = self.inner.workspace_defaults.worktrees
            && chat.workspace.as_deref().is_some_and(is_git_repository);
        if !wanted.unwrap_or(default) {
            return Ok(chat);
        }
        let chat_id = chat.id.clone();
        match self.start_worktree(chat, StartAt::default()).await {
            Ok(chat) => Ok(chat),
            // Asked for: taken back whole, a chat asked for in a worktree is never without one.
            Err(error) if wanted == Some(true) => {
                self.inner.store.delete_chat(&chat_id)?;
                Err(error)
            }
            // The default, where it cannot be (a repository without a commit yet): the chat
            // works in the folder, and shows it (its switch off, the folder in its header).
            Err(error) => {
                tracing::info!(error = %error.message, "the default worktree could not be made");
                Ok(self.inner.store.get_chat(&chat_id)?)
            }
        }
    }

    /// Creates the chat; its models, when chosen, must be known already.
    pub fn create_chat(&self, request: NewChat) -> Result<Chat, ApiError> {
        for choice in [&request.model, &request.planner_model].into_iter().flatten() {
            self.check_known(choice)?;
        }
        let workspace = request.workspace.as_deref();
        let workspace = workspace.map(|w| checked_workspace(w, &self.inner.home)).transpose()?;
        let scope =
            checked_scope(request.scope.as_deref().unwrap_or_default(), workspace.as_deref())?;
        let defaults = &self.inner.defaults;
        let settings = ChatSettings {
            title: match request.title.as_deref().map(str::trim).filter(|t| !t.is_empty()) {
                Some(title) => checked_title(title)?,
                None => DEFAULT_TITLE.to_owned(),
            },
            save_plans: request
                .save_plans
                .unwrap_or_else(|| workspace.as_deref().is_some_and(is_git_repository)),
            workspace,
            plan_mode: request.plan_mode.unwrap_or(defaults.enabled),
            auto_approve: request.auto_approve.unwrap_or(defaults.auto_approve),
            scope,
        };
        let (model, planner_model) = (request.model.as_ref(), request.planner_model.as_ref());
        Ok(self.inner.store.write(|tx| {
            let chat = tx.insert_chat(&settings)?;
            match model.or(planner_model) {
                Some(_) => tx.set_chat_models(&chat.id, model, planner_model),
                None => Ok(chat),
            }
        })?)
    }

    /// Every chat, newest first.
    pub fn list_chats(&self) -> Result<Vec<Chat>, ApiError> {
        Ok(self.inner.store.list_chats()?)
    }

    /// The chat with the latest page of its messages (see `chat_view_from`).
    pub fn chat_view(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        self.chat_view_from(chat_id, None)
    }

    /// The chat with its messages from `from` on, or the latest page of them when None.
    pub fn chat_view_from(
        &self,
        chat_id: &ChatId,
        from: Option<&MessageId>,
    ) -> Result<ChatView, ApiError> {
        let (snapshot, messages_cursor) = self.paged_snapshot(chat_id, from)?;
        let unconfined = chat_notice(self.inner.confinement.as_deref(), &snapshot.chat);
        let window = self.inner.providers.window_of(&snapshot.chat, Role::Executor);
        let usage = self.inner.store.chat_usage(chat_id, window)?;
        let executor_calls_tools = self.executor_calls_tools(&snapshot.chat);
        Ok(ChatView {
            chat: snapshot.chat,
            messages: snapshot.messages,
            messages_cursor,
            state: StateView {
                phase: snapshot.state.phase,
                plan_pending: snapshot.state.plan_pending,
                plan: snapshot.state.plan,
                completion: snapshot.state.completion,
                stopped: snapshot.state.stopped,
                changes: snapshot.changes,
                unconfined,
                executor_calls_tools,
            },
            usage,
        })
    }

    /// Whether the executor's model can call tools (see `StateView::executor_calls_tools`);
    /// without a model at all, the turn's own error says what is wrong.
    fn executor_calls_tools(&self, chat: &Chat) -> bool {
        let provider = self.inner.providers.peek(chat, Role::Executor);
        provider.is_none_or(|provider| provider.calls_tools())
    }

    /// Stops the chat's turn, if any, then deletes the chat and everything it holds; its own
    /// worktree goes too (work not merged stays committed on its branch).
    pub async fn delete_chat(&self, chat_id: &ChatId) -> Result<bool, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        self.inner.hub.stop_turn(chat_id).await;
        let chat = self.inner.store.get_chat(chat_id)?;
        // The worktree first: a deletion it refuses changes nothing.
        self.forget_worktree(&chat).await?;
        let deleted = self.inner.store.delete_chat(chat_id)?;
        self.inner.hub.forget(chat_id);
        // The copies of its attachments and its checkpoints' shadow repository go with it;
        // one left behind harms nothing.
        let _ = std::fs::remove_dir_all(attachments_dir(&self.inner.home, chat_id));
        let _ = std::fs::remove_dir_all(shadow_dir(&self.inner.home, chat_id));
        Ok(deleted)
    }

    /// The chat's task list (`turn_plan`'s); empty when it has none.
    pub fn task_list(&self, chat_id: &ChatId) -> Result<Vec<Task>, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        Ok(self.inner.store.task_list(chat_id)?.tasks)
    }

    /// `DELETE /v1/chats/{id}/plan`: clears the task list (a `plan` event with no tasks);
    /// the plan folder hears it, and marks the tasks it left open as blocked.
    pub async fn delete_task_list(&self, chat_id: &ChatId) -> Result<bool, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        let left = self.inner.store.task_list(chat_id)?;
        let deleted = self.inner.store.delete_task_list(chat_id)?;
        if deleted {
            self.inner.hub.emit(chat_id, Event::TaskList { tasks: TaskList::empty().tasks });
            let cleared = WorkChange::Cleared { left: &left };
            self.inner.tell_work(chat_id, cleared, &CancellationToken::new()).await;
        }
        Ok(deleted)
    }

    /// Every revision of the chat's plan, oldest first.
    pub fn plan_revisions(&self, chat_id: &ChatId) -> Result<Vec<PlanDocument>, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        Ok(self.inner.store.plan_revisions(chat_id)?)
    }

    /// The chat's events from now on (DESIGN §7).
    pub fn subscribe(
        &self,
        chat_id: &ChatId,
    ) -> Result<tokio::sync::broadcast::Receiver<Event>, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        Ok(self.inner.hub.subscribe(chat_id))
    }
}
