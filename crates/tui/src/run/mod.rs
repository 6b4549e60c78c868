//! Running a session: the terminal taken and given back (`terminal`), the event loop
//! (`session`) and the engine calls (`actions`; a task's diff and restore in `checkpoints`).

pub mod actions;
pub mod checkpoints;
mod models;
pub mod session;
pub mod terminal;
