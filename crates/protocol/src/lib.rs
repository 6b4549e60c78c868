//! Preflight's ground floor: the words every other crate speaks, with no I/O.
//!
//! What is here: the typed ids ([`ids`]), the stable error codes ([`error_code`]), the task
//! list and its rules ([`tasks`]: `turn_plan`'s operations, phases, stops, completion), the
//! planner's fences and its plan document ([`planner`]), chat messages ([`chat`]), the
//! records of checkpoints ([`checkpoints`]), what a tool is offered and returns ([`tool`]),
//! the one function that renders untrusted text inert ([`inert`]), and what model calls used
//! and cost ([`usage`]).
//!
//! **What it may use:** serde, and nothing of Preflight. Every other crate of the engine
//! stands on this one; it names none of them, so a change above never recompiles it.
//! Without the default feature `host` (the ids' SQLite mapping and their random `new`), it
//! builds with no I/O at all: what the fuzz targets in `fuzz/` compile.
//!
//! Each module is one topic with its own facade; a module's files are private behind it.

pub mod chat;
pub mod checkpoints;
pub mod error_code;
pub mod ids;
pub mod inert;
pub mod planner;
pub mod tasks;
pub mod tool;
pub mod usage;

pub use ids::{ChangeId, ChatId, MessageId, QuestionId, TaskId};
