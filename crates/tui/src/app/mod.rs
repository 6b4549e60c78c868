//! The terminal's state and how it changes: the data (`state`), the card waiting for the
//! user (`card`), the engine's events (`events`), an MCP server's form (`form`), the keys
//! (`keys`), editing the input line (`input`), the engine calls keys ask for (`command`) and
//! how long tool calls took (`timing`). No I/O here: the event loop (`run/`) does the calls.

pub mod card;
pub mod command;
pub mod events;
pub mod form;
pub mod input;
pub mod keys;
pub mod state;
pub mod timing;
