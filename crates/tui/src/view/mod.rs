//! Drawing the state (pure: state → ratatui buffer), one file per part of the screen;
//! `screen` lays them out.

pub mod cards;
pub mod chat_list;
pub mod diff;
pub mod footer;
pub mod screen;
pub mod tasks;
pub mod tool_sentences;
pub mod transcript;
pub mod usage;
pub mod worktree;
