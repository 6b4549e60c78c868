//! Running a session: the terminal taken and given back (`terminal`), the event loop
//! (`session`) and the engine calls (`actions`).

pub mod actions;
pub mod session;
pub mod terminal;
