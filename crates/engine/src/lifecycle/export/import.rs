//! An import (DESIGN §15): a JSON export read from a stream with a size cap, checked, given
//! fresh ids and stored as a new chat in one transaction. A refusal is `ERR_BAD_REQUEST`
//! naming what is wrong, and stores nothing.
//!
//! The new chat is where the exported one stood: its phase, a question card or a plan that
//! waited waits again. A turn the export caught running is settled as a restart settles it
//! (`recovery.rs`): a planner as stopped, an executor stopped with its tasks left
//! (`interrupted`), so no turn is ever running after an import. What this machine cannot
//! give the chat is said in the chat, in a message of Preflight's at its end: a workspace
//! that is not a usable folder here (the chat is imported without one), a scope that no
//! longer fits it, attachments whose files did not come along.

use std::collections::HashMap;
use std::io::{self, BufReader, Read};
use std::path::Path;

use preflight_protocol::chat::{Chat, ChatSettings, Message, MessageBody, Phase};
use preflight_protocol::ids::{ChangeId, MessageId};
use preflight_protocol::planner::PlanDocument;
use preflight_protocol::tasks::PlanChange;
use preflight_store::{ChatImport, Store, StoreError};

use super::format::{ChatExport, ExportedChat, MAX_IMPORT_BYTES, NEWER_FORMAT};
use super::references::check_references;
use crate::lifecycle::chat_input::{checked_scope, checked_title, checked_workspace};
use crate::lifecycle::error::ApiError;
use crate::lifecycle::messages::assistant_message;
use crate::lifecycle::recovery::settle_interrupted_execution;

/// Reads a JSON export from `input` (at most [`MAX_IMPORT_BYTES`]) and stores it as a new
/// chat; `home` is the data folder, which no workspace may be or hold. Blocking.
pub fn import_chat(store: &Store, home: &Path, input: &mut dyn Read) -> Result<Chat, ApiError> {
    let export = read_export(input)?;
    check_references(&export)?;
    let (import, notes) = prepared(export, home)?;
    let notice = (!notes.is_empty()).then(|| assistant_message(notes.join(" "), None));
    let phase = import.phase;
    let stored = store.write(|tx| {
        let chat = tx.import_chat(&import)?;
        match phase {
            Phase::Planning => drop(tx.settle_interrupted_planning(&chat.id)?),
            Phase::Executing => settle_interrupted_execution(tx, &chat.id)?,
            Phase::Questions | Phase::AwaitingApproval | Phase::Idle => {}
        }
        if let Some(notice) = &notice {
            tx.insert_message(&chat.id, notice)?;
        }
        Ok(chat)
    });
    stored.map_err(refused)
}

/// The export, parsed as it is read; over the cap, not JSON, not an export or a newer
/// format are each refused by name.
fn read_export(input: &mut dyn Read) -> Result<ChatExport, ApiError> {
    let mut capped = Capped { inner: input, left: MAX_IMPORT_BYTES, over: false };
    let parsed = serde_json::from_reader(BufReader::with_capacity(1 << 16, &mut capped));
    parsed.map_err(|error| {
        let refusal = if capped.over {
            format!(
                "the file is larger than {} MiB, the most an import reads",
                MAX_IMPORT_BYTES >> 20
            )
        } else if error.is_syntax() || error.is_eof() {
            format!("the file is not JSON: {error}")
        } else if error.is_io() {
            format!("the file could not be read: {error}")
        } else {
            let text = error.to_string();
            let text = text.rsplit_once(" at line ").map_or(text.as_str(), |(text, _)| text);
            match text.starts_with(NEWER_FORMAT) {
                true => format!("this export was {text}"),
                false => format!("the file is not a Preflight chat export: {text}"),
            }
        };
        ApiError::bad_request(refusal)
    })
}

/// A reader that fails once more than `left` bytes come, and says so in `over`.
struct Capped<'r> {
    inner: &'r mut dyn Read,
    left: u64,
    over: bool,
}

impl Read for Capped<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let room = usize::try_from(self.left).unwrap_or(usize::MAX).min(buf.len());
        // With no room left, one byte more says whether the input goes on past the cap.
        let read = self.inner.read(&mut buf[..room.max(1)])?;
        if read > room {
            self.over = true;
            return Err(io::Error::other("the export is over the size cap"));
        }
        self.left -= read as u64;
        Ok(read)
    }
}

/// The export's model choices and calls as the API would take them: a provider and a model
/// named (at most 64 and 200 characters), and counts and costs a call could have.
fn checked_usage(export: &ChatExport) -> Result<(), ApiError> {
    let choices =
        [("chat.model", &export.chat.model), ("chat.planner_model", &export.chat.planner_model)];
    for (field, choice) in choices {
        let Some(choice) = choice else { continue };
        let fits =
            |text: &str, most: usize| !text.trim().is_empty() && text.chars().count() <= most;
        if !fits(&choice.provider, 64) || !fits(&choice.model, 200) {
            return Err(ApiError::bad_request(format!(
                "the export's {field} needs a provider (at most 64 characters) and a model (at most 200)"
            )));
        }
    }
    let priced = |call: &preflight_protocol::usage::ModelCall| {
        call.cost_usd.is_none_or(|cost| cost.is_finite() && cost >= 0.0)
    };
    if !export.model_calls.iter().all(priced) {
        return Err(ApiError::bad_request("the export's model_calls have a cost below 0"));
    }
    Ok(())
}

/// The chat to store, with fresh ids, and what the chat must be told.
fn prepared(export: ChatExport, home: &Path) -> Result<(ChatImport, Vec<String>), ApiError> {
    let title = checked_title(&export.chat.title)
        .map_err(|error| ApiError::bad_request(format!("the export's title: {}", error.message)))?;
    checked_usage(&export)?;
    let (workspace, scope, mut notes) = placed(&export.chat, home);
    if export.messages.iter().any(|message| has_attachments(&message.body)) {
        notes.push(
            "The files attached to its messages were not part of the export: their names are \
             kept, but the model can no longer read them."
                .to_owned(),
        );
    }
    if !notes.is_empty() {
        let from = format!("This chat was imported from an export of {}.", export.exported_at);
        notes.insert(0, from);
    }
    let chat = &export.chat;
    let settings = ChatSettings {
        title,
        workspace,
        plan_mode: chat.plan_mode,
        auto_approve: chat.auto_approve,
        save_plans: chat.save_plans,
        scope,
    };
    let import = ChatImport {
        settings,
        created_at: export.chat.created_at,
        phase: export.state.phase,
        plan_pending: export.state.plan_pending,
        plans_again: export.state.plans_again,
        messages: renamed(export.messages),
        revisions: export.plan_revisions.into_iter().map(unconsented).collect(),
        task_list: export.task_list.unwrap_or_default(),
        changes: export.changes.into_iter().map(fresh_change).collect(),
        stops: export.stops,
        completion: export.completion,
        model: export.chat.model,
        planner_model: export.chat.planner_model,
        model_calls: export.model_calls,
        points: Vec::new(),
    };
    Ok((import, notes))
}

/// The workspace and scope the chat gets here, and what is said when they cannot be kept.
fn placed(chat: &ExportedChat, home: &Path) -> (Option<String>, Vec<String>, Vec<String>) {
    let Some(workspace) = &chat.workspace else { return (None, Vec::new(), Vec::new()) };
    let folder = match checked_workspace(workspace, home) {
        Ok(folder) => folder,
        Err(error) => {
            let note = format!(
                "Its workspace {workspace} cannot be used on this machine ({}), so it has none: \
                 choose a folder for it to work in.",
                error.message
            );
            return (None, Vec::new(), vec![note]);
        }
    };
    match checked_scope(&chat.scope, Some(&folder)) {
        Ok(scope) => (Some(folder), scope, Vec::new()),
        Err(error) => {
            let note = format!(
                "Its planning scope does not fit the workspace here ({}), so it plans over the \
                 whole workspace.",
                error.message
            );
            (Some(folder), Vec::new(), vec![note])
        }
    }
}

fn has_attachments(body: &MessageBody) -> bool {
    matches!(body, MessageBody::User { attachments, .. } if !attachments.is_empty())
}

/// The messages with fresh ids, a compaction record's `covers` pointed at them, and the
/// plans of cards without the exporting machine's consent to run unconfined.
fn renamed(messages: Vec<Message>) -> Vec<Message> {
    let fresh: HashMap<MessageId, MessageId> =
        messages.iter().map(|message| (message.id.clone(), MessageId::new())).collect();
    let new_id = |id: &MessageId| fresh.get(id).cloned().unwrap_or_else(MessageId::new);
    messages
        .into_iter()
        .map(|mut message| {
            message.id = new_id(&message.id);
            match &mut message.body {
                MessageBody::Compaction { covers, .. } => {
                    *covers = [new_id(&covers[0]), new_id(&covers[1])]
                }
                MessageBody::Assistant { plan: Some(plan), .. } => plan.run_unconfined = false,
                _ => {}
            }
            message
        })
        .collect()
}

fn fresh_change(mut change: PlanChange) -> PlanChange {
    change.id = ChangeId::new();
    change
}

/// The user's consent to run a plan's code unconfined was given for the sandbox of the
/// machine that exported it: an import never carries it.
fn unconsented(mut document: PlanDocument) -> PlanDocument {
    document.run_unconfined = false;
    document
}

/// A store refusal of the export's content is the export's fault (400); one of the store
/// itself is not.
fn refused(error: StoreError) -> ApiError {
    match error {
        StoreError::InvalidInput { .. }
        | StoreError::Corrupt { .. }
        | StoreError::WrongState { .. }
        | StoreError::NotFound { .. } => {
            ApiError::bad_request(format!("the export does not fit together: {error}"))
        }
        other => other.into(),
    }
}
