//! The user's messages: send (DESIGN §2 `send`), edit and re-send, stop the running turn.

use std::sync::Arc;

use preflight_agent::WorkChange;
use preflight_protocol::chat::{Attachment, Chat, ChatSettings, MessageBody, PastedImage, Phase};
use preflight_protocol::ids::{ChatId, MessageId};

use crate::lifecycle::attachments::{
    attachments_dir, chat_attachments, copy_attachments, write_pasted, Copies,
};
use crate::lifecycle::chats::DEFAULT_TITLE;
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;
use crate::lifecycle::hub::{TurnGuard, TurnKind};
use crate::lifecycle::messages::user_message;
use crate::lifecycle::providers::Role;
use crate::lifecycle::runner::{spawn_turn, TurnJob};
use crate::lifecycle::transitions::{route_edit, route_send, ChatFacts, SendRoute};
use crate::lifecycle::typed_input::Prepared;
use crate::lifecycle::view::ChatView;
use crate::lifecycle::vision::refuse_unseen_images;

/// Longest title a chat takes from its first message.
const TITLE_CHARS: usize = 60;
/// Why an edit of the first message sets the chat's plan aside, as its plan folder says it.
const SET_ASIDE: &str = "the user edited the request it was made for, and the chat plans again";

impl Engine {
    /// Sends a user message. The first message of a plan-mode chat starts a planner turn
    /// (phase `planning` before this returns); a message while a plan card waits is
    /// revision feedback; otherwise the executor runs. `files` are attached: copied into
    /// the chat's attachments folder first (`attachments.rs`); a file that cannot be
    /// attached refuses the whole message.
    pub fn send(
        &self,
        chat_id: &ChatId,
        content: &str,
        files: Vec<String>,
    ) -> Result<ChatView, ApiError> {
        self.send_with_images(chat_id, content, files, Vec::new())
    }

    /// [`Engine::send`] with images pasted into the message box: written into the chat's
    /// attachments folder like the files. A message with images (pasted, or files that are
    /// images) to a model that cannot see them is refused, and nothing is kept.
    pub fn send_with_images(
        &self,
        chat_id: &ChatId,
        content: &str,
        files: Vec<String>,
        images: Vec<PastedImage>,
    ) -> Result<ChatView, ApiError> {
        self.send_prepared(chat_id, Prepared::plain(content), files, images)
    }

    /// [`Engine::send_with_images`] of a message made ready by `typed_input.rs`: `input`'s
    /// content is what the model reads; its resources are attached beside the files.
    pub(super) fn send_prepared(
        &self,
        chat_id: &ChatId,
        input: Prepared,
        files: Vec<String>,
        images: Vec<PastedImage>,
    ) -> Result<ChatView, ApiError> {
        let content = input.content.as_str();
        if content.trim().is_empty() {
            return Err(ApiError::bad_request("a message needs some content"));
        }
        self.prompt_hooks(chat_id, content)?;
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        let route = route_send(&self.facts(&chat)?)?;
        if route == SendRoute::Revise {
            if !files.is_empty() || !images.is_empty() || !input.resources.is_empty() {
                return Err(ApiError::bad_request(
                    "files go with a task or a message to the executor, not with plan feedback",
                ));
            }
            return self.revise_plan(chat_id, Some(content), &[]);
        }
        let (kind, phase) = match route {
            SendRoute::Plan => (TurnKind::Planner, Phase::Planning),
            _ => (TurnKind::Executor, Phase::Executing),
        };
        let mut copies = self.copy_attachments(&chat, &files, &images)?;
        self.attach_resources(&chat, &mut copies, &input.resources)?;
        self.check_images_seen(&chat, &copies.attachments, kind)?;
        let guard = self.claim_turn(chat_id, kind)?;
        let mut message = user_message(content, files);
        if let MessageBody::User { attachments, typed, .. } = &mut message.body {
            attachments.clone_from(&copies.attachments);
            typed.clone_from(&input.typed);
        }
        self.inner.store.begin_user_turn(chat_id, &message, phase)?;
        copies.keep();
        self.name_chat_after(&chat, input.typed_text());
        self.announce(chat_id, &message, phase);
        let job = if kind == TurnKind::Planner { TurnJob::Plan } else { TurnJob::Execute };
        spawn_turn(&self.inner, guard, job);
        self.chat_view(chat_id)
    }

    /// Edits a user message and re-sends from it: every later message is deleted; editing
    /// the first message of a plan-mode chat runs plan mode again.
    pub fn edit_message(
        &self,
        chat_id: &ChatId,
        message_id: &MessageId,
        content: &str,
    ) -> Result<ChatView, ApiError> {
        if content.trim().is_empty() {
            return Err(ApiError::bad_request("a message needs some content"));
        }
        self.prompt_hooks(chat_id, content)?;
        let _serial = self.serialize();
        let chat = self.inner.store.get_chat(chat_id)?;
        self.inner.store.message(chat_id, message_id)?;
        let first = self.inner.store.read(|tx| tx.first_user_message(chat_id))?;
        let edits_first = first.is_some_and(|first| first.id == *message_id);
        let phase = route_edit(&self.facts(&chat)?, edits_first)?;
        let kind = if phase == Phase::Planning { TurnKind::Planner } else { TurnKind::Executor };
        let guard = self.claim_turn(chat_id, kind)?;
        // Planning again sets the approved plan aside: its folder hears it first.
        let sets_aside = edits_first && self.inner.store.state(chat_id)?.plan.is_some();
        let message = self.inner.store.edit_user_message(chat_id, message_id, content, phase)?;
        self.announce(chat_id, &message, phase);
        self.emit_task_list(chat_id);
        let job = if kind == TurnKind::Planner { TurnJob::Plan } else { TurnJob::Execute };
        match sets_aside {
            true => {
                let (inner, chat) = (Arc::clone(&self.inner), chat_id.clone());
                self.inner.tasks.spawn(async move {
                    let change = WorkChange::Superseded { why: SET_ASIDE };
                    inner.tell_work(&chat, change, &guard.cancel).await;
                    spawn_turn(&inner, guard, job);
                });
            }
            false => spawn_turn(&self.inner, guard, job),
        }
        self.chat_view(chat_id)
    }

    /// Stops the chat's running turn and waits until it has settled in the store. A stop
    /// during planning executes nothing. Without a running turn this changes nothing.
    pub async fn stop(&self, chat_id: &ChatId) -> Result<ChatView, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        self.inner.hub.stop_turn(chat_id).await;
        self.chat_view(chat_id)
    }

    fn copy_attachments(
        &self,
        chat: &Chat,
        files: &[String],
        images: &[PastedImage],
    ) -> Result<Copies, ApiError> {
        if files.is_empty() && images.is_empty() {
            // Most messages carry none: no need to read the chat's earlier ones.
            return Ok(Copies::none());
        }
        let taken = chat_attachments(&self.inner.store.messages(&chat.id)?);
        let dir = attachments_dir(&self.inner.home, &chat.id);
        let workspace = chat.workspace.as_deref().map(std::path::Path::new);
        let mut copies = copy_attachments(files, workspace, &dir, &taken)?;
        write_pasted(&mut copies, images, &dir, &taken)?;
        Ok(copies)
    }

    /// Refuses a message with images unless the models it goes to see them: the planner's
    /// when it plans, and the executor's (which the planner hands over to). A model that
    /// could not be set up is left to the turn, which says so in the chat.
    fn check_images_seen(
        &self,
        chat: &Chat,
        attachments: &[Attachment],
        kind: TurnKind,
    ) -> Result<(), ApiError> {
        let images = attachments.iter().filter(|a| a.media_type.is_some()).count();
        let planner = (kind == TurnKind::Planner).then_some(Role::Planner);
        for role in [planner, Some(Role::Executor)].into_iter().flatten() {
            let (sees, model) = self.inner.providers.vision_of(chat, role);
            refuse_unseen_images(sees, &model, images)?;
        }
        Ok(())
    }

    /// What the lifecycle's decisions need to know of a chat.
    pub(super) fn facts(&self, chat: &Chat) -> Result<ChatFacts, ApiError> {
        let (phase, started) = self.inner.store.read(|tx| {
            let again = tx.plans_again(&chat.id)?;
            Ok((tx.phase(&chat.id)?, tx.user_turn_count(&chat.id)? > 0 && !again))
        })?;
        let running = self.inner.hub.turn(&chat.id).map(|turn| turn.kind);
        Ok(ChatFacts { plan_mode: chat.plan_mode, phase, started, running })
    }

    pub(super) fn claim_turn(
        &self,
        chat_id: &ChatId,
        kind: TurnKind,
    ) -> Result<TurnGuard, ApiError> {
        // No turn runs in a worktree whose folder is gone: its tools would find nothing.
        let chat = self.inner.store.get_chat(chat_id)?;
        if let Some(gone) = crate::lifecycle::worktrees::unusable_worktree(&chat) {
            return Err(gone);
        }
        self.inner.hub.begin_turn(chat_id, kind).ok_or_else(ApiError::turn_active)
    }

    /// A chat created without a title is named after its first message.
    fn name_chat_after(&self, chat: &Chat, content: &str) {
        if chat.title != DEFAULT_TITLE {
            return;
        }
        let line =
            content.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or(DEFAULT_TITLE);
        let mut title: String = line.chars().take(TITLE_CHARS).collect();
        if line.chars().count() > TITLE_CHARS {
            title.push('…');
        }
        let settings = ChatSettings {
            title,
            workspace: chat.workspace.clone(),
            plan_mode: chat.plan_mode,
            auto_approve: chat.auto_approve,
            save_plans: chat.save_plans,
            scope: chat.scope.clone(),
        };
        // Naming is a courtesy: a failure here must not fail the message that was stored.
        let _ = self.inner.store.update_chat(&chat.id, &settings);
    }
}
