//! Text from the model, tools and the store made inert for a terminal: the engine's one
//! function for every terminal output (`preflight_engine::inert`), used by every widget that
//! draws such text.

pub use preflight_engine::inert::{inert, one_line};
