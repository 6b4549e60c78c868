//! The SQLite store: chats, messages, session state, plan revisions, task lists.
//!
//! **Invariant:** every lifecycle step (DESIGN §2) is one SQLite transaction, so a crash at
//! any instant leaves a chat in the state before the step or the state after it.
//! Steps are methods of [`Tx`], built on its typed primitives; [`Store`] runs each in its
//! own transaction, and a later layer composes new steps with [`Store::write`].
//!
//! **Boundary:** the store knows the stored shapes and which step fits which phase; it does
//! not run models, tools or timers. Every method is synchronous and holds the connection's
//! mutex only while it runs, never across an `.await` of its async callers.
//!
//! The schema is described in `schema.rs`.
//!
//! **What it may use:** the protocol crate (the shapes it stores) and SQLite; nothing that
//! runs a model, a tool or a timer. The providers' crate stands beside it and neither names
//! the other; the agent and the engine stand above.

mod changes;
mod chats;
mod check;
mod checkpoints;
mod codec;
mod database;
mod error;
mod messages;
mod migrations;
mod pages;
mod plans;
mod points;
mod schema;
mod search;
mod session;
mod snapshot;
mod steps;
mod stops;
mod tasks;
mod transfer;
mod tx;
mod usage;

pub use check::{chat_violations, round_violations, task_list_violations, CheckReport};
pub use database::{Store, SCHEMA_VERSION};
pub use error::{Conflict, Entity, StoreError};
pub use pages::Page;
pub use points::{ChatPoint, PointState};
pub use search::{fts_query, word_count, SearchRow, MATCH_END, MATCH_START, MAX_SEARCH_WORDS};
pub use session::ChatState;
pub use snapshot::ChatSnapshot;
pub use steps::{answer_text, AnswerRecorded, ChangeAnswer, ChangeAsked};
pub use transfer::{ChatImport, ImportedPoint};
pub use tx::Tx;

/// A new random token (temporary file names); chats and messages get [`crate::ChatId::new`]
/// and [`crate::MessageId::new`].
pub fn new_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}
