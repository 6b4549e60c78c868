//! A chat's choice of models (DESIGN §15): checked before it is stored, stored with a notice
//! in the chat when it changes mid-chat ("Model: … from here on"), never a silent change.
//!
//! **Invariant:** an unknown provider or model is refused (400) and changes nothing; a model
//! the provider's section does not list is known only after its server was asked
//! ([`Engine::ensure_known`]), so the adapters ask before they patch.

use preflight_agent::events::Event;
use preflight_llm::{list_models, ProviderKind};
use preflight_protocol::chat::{Chat, ChatSettings, ModelChoice, Notice};
use tokio_util::sync::CancellationToken;

use crate::lifecycle::chat_edit::ChatPatch;
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::messages::notice_message;
use crate::lifecycle::providers::Role;

/// One of the chat's models changing: the planner's or the executor's, to a choice or back
/// to the default (`None`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Switch {
    role: Role,
    to: Option<ModelChoice>,
}

impl Engine {
    /// Asks the servers of `choices` for their models when a choice is not known yet, so
    /// that a model the server serves but the section does not list can be chosen. A
    /// provider that does not answer leaves its unlisted models unknown.
    pub async fn ensure_known(&self, choices: &[Option<&ModelChoice>]) -> Result<(), ApiError> {
        for choice in choices.iter().flatten() {
            if self.inner.providers.knows(choice)? {
                continue;
            }
            let entry = self.inner.providers.entries().iter().find(|e| e.name == choice.provider);
            let Some(entry) = entry.filter(|entry| entry.settings.kind != ProviderKind::Embedded)
            else {
                continue;
            };
            let settings = entry.settings.clone();
            let key = self.find_key(&settings).await?;
            let listed = list_models(&settings, key.as_ref(), &CancellationToken::new()).await;
            let served = listed.map_err(|error| {
                ApiError::bad_request(format!(
                    "cannot choose {choice}: the provider {:?} did not list its models ({error})",
                    choice.provider
                ))
            })?;
            self.inner.providers.note_served(&choice.provider, &served);
        }
        Ok(())
    }

    /// `PATCH /v1/chats/{id}` from an adapter: the models checked with their servers first.
    pub async fn patch_chat(
        &self,
        chat_id: &preflight_protocol::ids::ChatId,
        patch: &ChatPatch,
    ) -> Result<Chat, ApiError> {
        let choices = [patch.model.as_ref(), patch.planner_model.as_ref()];
        self.ensure_known(&choices.map(|choice| choice.and_then(Option::as_ref))).await?;
        match patch.worktree {
            // Taken away first, so that the same patch may then move the folder.
            Some(false) => {
                self.set_chat_worktree(chat_id, false).await?;
                self.update_chat(chat_id, patch)
            }
            Some(true) => {
                self.worktree_possible(chat_id, patch.workspace.as_ref())?;
                let before = self.inner.store.get_chat(chat_id)?;
                self.update_chat(chat_id, patch)?;
                match self.set_chat_worktree(chat_id, true).await {
                    Ok(chat) => Ok(chat),
                    Err(error) => {
                        // Refused whole: the rest of the patch is taken back.
                        let settings = ChatSettings {
                            title: before.title,
                            workspace: before.workspace,
                            plan_mode: before.plan_mode,
                            auto_approve: before.auto_approve,
                            save_plans: before.save_plans,
                            scope: before.scope,
                        };
                        self.inner.store.update_chat(chat_id, &settings)?;
                        Err(error)
                    }
                }
            }
            None if patch.workspace.is_some() => {
                let chat = self.update_chat(chat_id, patch)?;
                self.worktree_by_default(chat).await
            }
            None => self.update_chat(chat_id, patch),
        }
    }

    /// A chat that just got its first folder, a git repository, before its first message,
    /// gets its own worktree when `[workspace] worktrees` says so (the window sets the folder
    /// after creating the chat); where it cannot be made, the chat works in the folder.
    async fn worktree_by_default(&self, chat: Chat) -> Result<Chat, ApiError> {
        let fresh = chat.worktree.is_none()
            && self.inner.workspace_defaults.worktrees
            && chat
                .workspace
                .as_deref()
                .is_some_and(crate::lifecycle::chat_input::is_git_repository)
            && self.inner.store.read(|tx| tx.last_message(&chat.id))?.is_none();
        if !fresh {
            return Ok(chat);
        }
        match self.set_chat_worktree(&chat.id, true).await {
            Ok(chat) => Ok(chat),
            Err(error) => {
                tracing::info!(error = %error.message, "the default worktree could not be made");
                Ok(chat)
            }
        }
    }

    /// The switches `patch` makes: each choice checked, those equal to the chat's own left
    /// out.
    pub(super) fn model_switches(
        &self,
        chat: &Chat,
        patch: &ChatPatch,
    ) -> Result<Vec<Switch>, ApiError> {
        let asked = [(Role::Executor, &patch.model), (Role::Planner, &patch.planner_model)];
        let mut switches = Vec::new();
        for (role, asked) in asked {
            let Some(to) = asked else { continue };
            if let Some(choice) = to {
                self.check_known(choice)?;
            }
            let current = match role {
                Role::Executor => &chat.model,
                Role::Planner => &chat.planner_model,
            };
            if current != to {
                switches.push(Switch { role, to: to.clone() });
            }
        }
        Ok(switches)
    }

    pub(super) fn check_known(&self, choice: &ModelChoice) -> Result<(), ApiError> {
        if self.inner.providers.knows(choice)? {
            return Ok(());
        }
        Err(ApiError::bad_request(format!(
            "unknown model {:?} of the provider {:?}: neither config.toml lists it nor did its \
             server serve it",
            choice.model, choice.provider
        )))
    }

    /// Stores the settings and the switches in one write, with a notice for each switch
    /// when the chat has messages (before its first, a choice is no news).
    pub(super) fn store_switches(
        &self,
        chat: &Chat,
        settings: &ChatSettings,
        switches: Vec<Switch>,
    ) -> Result<Chat, ApiError> {
        let (mut model, mut planner_model) = (chat.model.clone(), chat.planner_model.clone());
        let mut notices = Vec::new();
        for Switch { role, to } in switches {
            let shown = to.clone().unwrap_or_else(|| self.inner.providers.default_choice(role));
            let planner = role == Role::Planner;
            notices.push(notice_message(Notice::ModelSwitched { planner, model: shown }));
            match role {
                Role::Executor => model = to,
                Role::Planner => planner_model = to,
            }
        }
        let stored = self.inner.store.write(|tx| {
            tx.update_chat(&chat.id, settings)?;
            let updated = tx.set_chat_models(&chat.id, model.as_ref(), planner_model.as_ref())?;
            if tx.last_message(&chat.id)?.is_none() {
                notices.clear();
            }
            for notice in &notices {
                tx.insert_message(&chat.id, notice)?;
            }
            Ok(updated)
        })?;
        for message in notices {
            self.inner.hub.emit(&chat.id, Event::Message { message });
        }
        Ok(stored)
    }
}
