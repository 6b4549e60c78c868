//! The terminal's state and how it changes: the data (`state`), the card waiting for the
//! user (`card`), the engine's events (`events`), an MCP server's form (`form`), the keys
//! (`keys`), editing the input line (`input`), the engine calls keys ask for (`command`),
//! how long tool calls took (`timing`) and a chat's worktree's commands and panel keys
//! (`worktree`). No I/O here: the event loop (`run/`) does the calls.

pub mod card;
pub mod command;
pub mod events;
pub mod form;
pub mod input;
pub mod keys;
pub mod state;
pub mod timing;
pub mod worktree;
