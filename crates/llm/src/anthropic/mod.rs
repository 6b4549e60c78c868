//! Anthropic Messages: the pure wire format and the HTTP client.

pub(crate) mod client;
pub mod format;

pub use client::AnthropicProvider;
