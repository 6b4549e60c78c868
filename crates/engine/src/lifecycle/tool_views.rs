//! What a chat's turns work with, as the user may look at it: the profile of its tools
//! and its code sandbox (DESIGN §4, §11).

use std::path::Path;

use preflight_agent::deferred_names;
use preflight_agent::skills::SkillSet;
use preflight_mcp::ProfileView;
use preflight_protocol::chat::Chat;
use preflight_protocol::ids::ChatId;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::providers::Role;
use crate::lifecycle::runner::turn_tools::{chat_skills, recent_tools};
use crate::lifecycle::transitions::{offers_turn_plan, profile_for};
use crate::lifecycle::unconfined::{held, unconfined_allowed};

impl Engine {
    /// The profile of the chat's running turn, or of the one that would run next, with
    /// the tool names its model sees.
    pub async fn profile(&self, chat_id: &ChatId) -> Result<ProfileView, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let profile = profile_for(&self.facts(&chat)?);
        let workspace = chat.workspace.as_deref().map(Path::new);
        let mut view = self
            .inner
            .mcp
            .profile_view(profile, workspace)
            .await
            .map_err(|error| ApiError::internal(error.to_string()))?;
        let list = self.inner.store.task_list(chat_id)?;
        if profile == preflight_mcp::Profile::Execution && offers_turn_plan(chat.plan_mode, &list) {
            view.tools.push(preflight_protocol::tasks::TOOL_NAME.to_owned());
        }
        view.deferred = self.deferred_tools(&chat, profile).await?;
        Ok(view)
    }

    /// The MCP tools tool search would defer in the chat's next turn of `profile`: the same
    /// rule as the turn's (`offer_tools`), from the tools' definitions, the window of the
    /// model that turn talks to and the chat's recent tools.
    async fn deferred_tools(
        &self,
        chat: &Chat,
        profile: preflight_mcp::Profile,
    ) -> Result<Vec<String>, ApiError> {
        let workspace = chat.workspace.as_deref().map(Path::new);
        let Ok(set) = self.inner.mcp.tools(profile, workspace).await else { return Ok(Vec::new()) };
        let role = match profile {
            preflight_mcp::Profile::Planning => Role::Planner,
            preflight_mcp::Profile::Execution => Role::Executor,
        };
        let limit = self.inner.tool_settings.limit(self.inner.providers.window_of(chat, role));
        let recent = recent_tools(&self.inner.store.messages(&chat.id)?);
        Ok(deferred_names(&set.tools, limit, &recent).unwrap_or_default())
    }

    /// The skills the chat's turns are shown (DESIGN §17): the user's own and its
    /// workspace's, with the folders left out and why.
    pub async fn skills(&self, chat_id: &ChatId) -> Result<SkillSet, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        Ok(chat_skills(&self.inner, chat.workspace.as_deref()).await)
    }

    /// The user's own skills (`$PREFLIGHT_HOME/skills/`), for Settings without a chat.
    pub async fn user_skills(&self) -> SkillSet {
        chat_skills(&self.inner, None).await
    }

    /// The chat's code sandbox as it describes itself (`sandbox_info`, DESIGN §11), started
    /// if it is not running; a chat without one says why, in the same shape. A chat whose
    /// runs would be unconfined without the user's choice gets that said instead, and no
    /// sandbox is started for it: the same rule as its runs.
    pub async fn sandbox(&self, chat_id: &ChatId) -> Result<SandboxView, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let Some(workspace) = chat.workspace.as_deref().map(Path::new) else {
            return Ok(SandboxView::absent(
                "this chat has no workspace, so it has no code sandbox",
            ));
        };
        let plan = self.inner.store.state(chat_id)?.plan;
        let confinement = self.inner.confinement.as_deref();
        if let Some(notice) = held(confinement, &chat, plan.as_ref()) {
            return Ok(SandboxView::absent(&not_started(&notice.reason)));
        }
        let consent = unconfined_allowed(confinement, plan.as_ref());
        let host = self.inner.mcp.with_unconfined_consent(consent);
        let cancel = tokio_util::sync::CancellationToken::new();
        Ok(match host.sandbox_info(workspace, &cancel).await {
            Ok((text, info)) => SandboxView {
                available: true,
                confined: info["confined"].as_bool().unwrap_or(false),
                venv_refusal: venv_refusal(&info["venv"]),
                text,
                info,
            },
            Err(why) => SandboxView::absent(&why.to_string()),
        })
    }
}

/// The refusal of `sandbox_info`'s `venv` facts: `None` when the venv is the sandbox's own or
/// not there yet.
fn venv_refusal(venv: &serde_json::Value) -> Option<ApiError> {
    if venv["exists"].as_bool() != Some(true) || venv["ours"].as_bool() != Some(false) {
        return None;
    }
    let path = venv["path"].as_str().unwrap_or(".sandbox/venv");
    if venv["adoptable"].as_bool() == Some(true) {
        return Some(ApiError::new(
            ErrorCode::VenvAdoptable,
            format!(
                "{path} was not recorded by Preflight's sandbox, but it looks like a venv an \
                 earlier Preflight made. It is not used until you confirm it: adopt it (\"Use \
                 this environment\"), or move it away or delete it, and the next run creates a \
                 fresh one."
            ),
        ));
    }
    let why = venv["refused_because"].as_str().unwrap_or("it came with the workspace");
    Some(ApiError::new(
        ErrorCode::VenvForeign,
        format!(
            "{path} was not made by Preflight's sandbox ({why}): its programs would run with \
             your rights, so it is not used. Move it away or delete it yourself, and the next \
             run creates a fresh one."
        ),
    ))
}

/// What the sandbox view says of a chat whose runs would be unconfined without the user's
/// choice.
fn not_started(reason: &str) -> String {
    format!(
        "The code sandbox was not started: it cannot confine runs on this machine ({reason}), \
         and this chat is not allowed to run unconfined. Approve its plan with \"Run \
         unconfined\" to allow it, or set [sandbox] confinement = \"off\" in config.toml."
    )
}

/// `GET /v1/chats/{id}/sandbox`: whether the chat has a code sandbox, whether bubblewrap
/// confines it, and its own words (`sandbox_info`) or why there is none.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SandboxView {
    pub available: bool,
    /// Confined by bubblewrap; `false` when commands run unconfined (or there is no sandbox).
    pub confined: bool,
    /// The sandbox's account of itself in plain words, or why the chat has none.
    pub text: String,
    /// `sandbox_info`'s structured facts (`confinement`, `network`, `limits`, `python`,
    /// `venv`, `packages`); `null` without a sandbox.
    #[cfg_attr(feature = "ts", ts(type = "unknown"))]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<Object>))]
    pub info: serde_json::Value,
    /// Why the workspace's `.sandbox/venv` is not used, when it is there and the sandbox did
    /// not make it: `ERR_VENV_ADOPTABLE` (an earlier Preflight's; the user may adopt it) or
    /// `ERR_VENV_FOREIGN` (never used; the user moves it away or deletes it).
    pub venv_refusal: Option<ApiError>,
}

impl SandboxView {
    fn absent(why: &str) -> SandboxView {
        SandboxView {
            available: false,
            confined: false,
            text: why.to_owned(),
            info: serde_json::Value::Null,
            venv_refusal: None,
        }
    }
}
