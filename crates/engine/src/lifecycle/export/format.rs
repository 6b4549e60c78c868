//! The JSON export of a chat, format 1 (DESIGN §15): what `GET /v1/chats/{id}/export`,
//! `preflight export` and the window's Export write, and what an import reads.
//!
//! ```text
//! {
//!   "format": 1,                     this file's version; always the first key
//!   "exported_at": "2026-…Z",        when it was written (RFC 3339, UTC)
//!   "exported_by": "Preflight 0.1.0",
//!   "chat": {title, workspace, plan_mode, auto_approve, save_plans, scope, model,
//!            planner_model, created_at},
//!   "state": {phase, plan_pending, plans_again},
//!   "plan_revisions": [every plan document, revision 1, 2, …],
//!   "task_list": {tasks, next_id, planned, history} or null,
//!   "changes": [the executor's plan changes with their answers, oldest first],
//!   "stops": {current, events}: the stops and continues since the plan was approved,
//!   "completion": the completion record or null,
//!   "model_calls": [each model call's phase, provider, model, tokens and cost, oldest first],
//!   "messages": [
//!     every message, oldest first, one a line, in the shapes of DESIGN §2
//!   ]
//! }
//! ```
//!
//! Every part is the shape the API shows (`GET /v1/chats/{id}`, `…/plan/revisions`,
//! `…/plan/changes`). The ids are the exporting chat's own, so that the parts can name each
//! other (a compaction record's `covers`); an import gives the chat, every message and every
//! plan change a fresh id and points the references at them. Question ids (a card's own) and
//! task ids (the list's own) are not ids of the store and stay.
//!
//! Not exported: checkpoints (each is a commit of the chat's shadow repository, which stays
//! on the machine that took it: the imported chat takes its own), the files of attachments
//! (a message keeps their names and sizes), and the consent to run a plan's code unconfined
//! (given for that machine's sandbox: an import clears it).
//!
//! A reader ignores fields it does not know; a change an older reader would misread takes a
//! new `format`, and a reader refuses a format newer than its own, before it reads the rest.

use preflight_protocol::chat::{Chat, Message, ModelChoice, Phase, PlanPending};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::{Completion, PlanChange, StopLog, TaskList};
use preflight_protocol::usage::ModelCall;
use serde::{Deserialize, Deserializer, Serialize};

/// The format this build writes, and the newest it reads.
pub const FORMAT: u32 = 1;

/// The largest export an import reads (64 MiB); the cap holds while the file is read.
pub const MAX_IMPORT_BYTES: u64 = 64 * 1024 * 1024;

/// How a chat is exported: JSON to import again, or Markdown for people.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ExportFormat {
    #[default]
    Json,
    Markdown,
}

impl ExportFormat {
    /// `json` or `markdown`, as the query string and the command line spell it.
    pub fn parse(text: &str) -> Option<ExportFormat> {
        match text {
            "json" => Some(ExportFormat::Json),
            "markdown" => Some(ExportFormat::Markdown),
            _ => None,
        }
    }

    /// The file name extension of an export in this format.
    pub fn extension(self) -> &'static str {
        match self {
            ExportFormat::Json => "json",
            ExportFormat::Markdown => "md",
        }
    }
}

/// A chat's JSON export, format 1 (DESIGN §15), as an import reads it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ChatExport {
    /// The format's version: 1. A newer one is refused.
    #[serde(deserialize_with = "known_format")]
    #[cfg_attr(feature = "openapi", schema(minimum = 1, maximum = 1))]
    pub format: u32,
    pub exported_at: String,
    #[serde(default)]
    pub exported_by: Option<String>,
    pub chat: ExportedChat,
    pub state: ExportedState,
    pub plan_revisions: Vec<PlanDocument>,
    pub task_list: Option<TaskList>,
    pub changes: Vec<PlanChange>,
    pub stops: StopLog,
    pub completion: Option<Completion>,
    /// Every model call of the chat with the usage its provider reported, oldest first.
    #[serde(default)]
    pub model_calls: Vec<ModelCall>,
    /// Oldest first.
    pub messages: Vec<Message>,
}

/// The export as its writer holds it before the messages, which follow it one by one: the
/// same fields as [`ChatExport`] but `messages`, in the same order.
#[derive(Debug, Serialize)]
pub(super) struct ExportHead {
    pub format: u32,
    pub exported_at: String,
    pub exported_by: String,
    pub chat: ExportedChat,
    pub state: ExportedState,
    pub plan_revisions: Vec<PlanDocument>,
    pub task_list: Option<TaskList>,
    pub changes: Vec<PlanChange>,
    pub stops: StopLog,
    pub completion: Option<Completion>,
    pub model_calls: Vec<ModelCall>,
}

/// The chat's own settings: what `POST /v1/chats` takes, and when it was created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExportedChat {
    /// Not blank, at most 200 characters, as a chat's title.
    #[cfg_attr(feature = "openapi", schema(max_length = 200, pattern = r"\S"))]
    pub title: String,
    pub workspace: Option<String>,
    pub plan_mode: bool,
    pub auto_approve: bool,
    pub save_plans: bool,
    #[serde(default)]
    pub scope: Vec<String>,
    /// The models the chat chose (null: the configured default), as names: an import keeps
    /// them, and a provider this machine does not have is said when the chat next sends.
    #[serde(default)]
    pub model: Option<ModelChoice>,
    #[serde(default)]
    pub planner_model: Option<ModelChoice>,
    pub created_at: String,
}

impl ExportedChat {
    pub(super) fn of(chat: &Chat) -> ExportedChat {
        ExportedChat {
            title: chat.title.clone(),
            workspace: chat.workspace.clone(),
            plan_mode: chat.plan_mode,
            auto_approve: chat.auto_approve,
            save_plans: chat.save_plans,
            scope: chat.scope.clone(),
            model: chat.model.clone(),
            planner_model: chat.planner_model.clone(),
            created_at: chat.created_at.clone(),
        }
    }
}

/// Where the chat stood: its phase, the question card that waits, and whether its next
/// message plans again. The plan, the completion and the stop are parts of their own.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ExportedState {
    pub phase: Phase,
    pub plan_pending: Option<PlanPending>,
    #[serde(default)]
    pub plans_again: bool,
}

/// The words of a refusal of a newer format; the import says them as they are.
pub(super) const NEWER_FORMAT: &str = "made by a newer Preflight";

/// `format`, refused at once when it is newer than this build reads, so that a newer
/// export is named as such rather than failing on a field this build does not know.
fn known_format<'de, D: Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    let format = u32::deserialize(deserializer)?;
    match format {
        0 => Err(serde::de::Error::custom("format 0 is no format of a Preflight export")),
        FORMAT => Ok(format),
        newer => Err(serde::de::Error::custom(format!(
            "{NEWER_FORMAT}: format {newer}, this build reads {FORMAT}; update Preflight to \
             import it"
        ))),
    }
}
