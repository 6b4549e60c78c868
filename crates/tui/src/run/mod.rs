//! Running a session: the terminal taken and given back (`terminal`), the event loop
//! (`session`), the bell when a chat needs the user (`bell`) and the engine calls (`actions`;
//! a task's diff and restore in `checkpoints`, the model picker in `models`, the open chat in
//! `open_chat`, a chat's own worktree in `worktree`).

pub mod actions;
pub mod bell;
pub mod checkpoints;
mod models;
mod offers;
pub mod open_chat;
pub mod session;
pub mod terminal;
pub mod worktree;
