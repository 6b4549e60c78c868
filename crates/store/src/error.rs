//! What can go wrong in the store, typed so that callers can branch on it.

use std::fmt;
use std::path::PathBuf;

use preflight_protocol::chat::Phase;
use preflight_protocol::ids::{ChangeId, ChatId, MessageId, QuestionId};

/// An error of the store. A step that fails leaves the database as it was.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("cannot open the store at {path}: {source}")]
    Open {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the store at {path} cannot use WAL journaling (journal mode {mode})")]
    NoWal { path: PathBuf, mode: String },
    #[error(
        "the store at {path} has schema version {found}, newer than the {known} this \
         Preflight knows; it was written by a newer Preflight"
    )]
    SchemaTooNew { path: PathBuf, found: i64, known: i64 },
    #[error(
        "the store at {path} has schema version {found}, this Preflight reads {known}: open it \
         with this version's app or `preflight serve` once first"
    )]
    SchemaMismatch { path: PathBuf, found: i64, known: i64 },
    #[error("cannot migrate the store at {path} to schema version {version}: {source}")]
    Migration {
        path: PathBuf,
        version: i64,
        #[source]
        source: rusqlite::Error,
    },
    #[error("{entity} {id} not found")]
    NotFound { entity: Entity, id: String },
    /// The chat is not in a state where the step makes sense (e.g. approve without a plan).
    #[error("chat {chat_id}: {conflict}")]
    WrongState { chat_id: ChatId, conflict: Conflict },
    /// The caller passed something the step cannot store (a programming error upstream).
    #[error("invalid input: {reason}")]
    InvalidInput { reason: String },
    /// A stored row that cannot be read back: bad JSON, an unknown enum value.
    #[error("corrupt row {row} in table {table}: {reason}")]
    Corrupt { table: &'static str, row: String, reason: String },
    #[error("sqlite: {0}")]
    Sqlite(#[from] rusqlite::Error),
}

/// What a [`StoreError::NotFound`] was looking for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Entity {
    Chat,
    Message,
    PlanChange,
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Entity::Chat => "chat",
            Entity::Message => "message",
            Entity::PlanChange => "plan change",
        })
    }
}

/// Why a step does not fit the chat's current state. The API maps these to its 409s.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Conflict {
    /// A question card waits for answers (`ERR_PLAN_PENDING`).
    #[error("answer or cancel the planner's questions first")]
    PlanPending,
    /// A plan card waits for approval: a new message is revision feedback, not a turn.
    #[error("a plan waits for approval")]
    PlanAwaitingApproval,
    /// No question card waits for answers (`ERR_NO_QUESTIONS`).
    #[error("no questions wait for an answer")]
    NoQuestions,
    /// The waiting card has no such question (`ERR_UNKNOWN_QUESTION`).
    #[error("the waiting card has no question {question_id}")]
    UnknownQuestion { question_id: QuestionId },
    /// No plan waits for approval (`ERR_NO_PLAN`).
    #[error("no plan waits for approval")]
    NoPendingPlan,
    /// The step belongs to the planning phase and the chat is elsewhere.
    #[error("the chat is not planning (phase {})", .phase.as_str())]
    NotPlanning { phase: Phase },
    /// The plan change was answered already (`ERR_CHANGE_ANSWERED`).
    #[error("plan change {change_id} is already {status}")]
    ChangeAnswered { change_id: ChangeId, status: &'static str },
    /// The task list no longer has what the change is about (`ERR_CHANGE_STALE`).
    #[error("plan change {change_id} no longer applies: {detail}; keep the plan instead")]
    ChangeStale { change_id: ChangeId, detail: String },
    /// Only the user's own messages can be edited: not answers, not the assistant's.
    #[error("message {message_id} is not a user message that can be edited")]
    NotEditable { message_id: MessageId },
}

impl StoreError {
    pub(crate) fn chat_not_found(chat_id: &ChatId) -> StoreError {
        StoreError::NotFound { entity: Entity::Chat, id: chat_id.to_string() }
    }

    pub(crate) fn message_not_found(message_id: &MessageId) -> StoreError {
        StoreError::NotFound { entity: Entity::Message, id: message_id.to_string() }
    }

    pub fn wrong_state(chat_id: &ChatId, conflict: Conflict) -> StoreError {
        StoreError::WrongState { chat_id: chat_id.clone(), conflict }
    }

    pub(crate) fn invalid(reason: impl Into<String>) -> StoreError {
        StoreError::InvalidInput { reason: reason.into() }
    }

    /// The conflict, when this is a wrong-state error.
    pub fn conflict(&self) -> Option<&Conflict> {
        match self {
            StoreError::WrongState { conflict, .. } => Some(conflict),
            _ => None,
        }
    }
}
