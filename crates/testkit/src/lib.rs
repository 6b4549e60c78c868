//! Test support for Preflight: a scripted model server that speaks the OpenAI chat
//! completions and Anthropic Messages wire formats (SSE) on loopback.
//!
//! It follows a [`Script`] of replies (text, tool calls, usage), fails on demand (an error
//! status with `retry-after`, a cut stream, a stall), picks a reply by what the request says
//! (e.g. a system prompt naming `plan-questions` is the planner's) and records every request
//! so that tests can assert what the engine sent. No mock of the engine: the engine's real
//! HTTP clients talk to it.
//!
//! Also the child programs of the crash and lock tests (`src/bin/*-child.rs`) and
//! [`child_binary`], which finds them; [`build_wheel`], a local wheel for pip tests; with the
//! `store-child` feature, `store`, the store tests' fixtures, checker and workload.

mod children;
mod peers;
mod recorded;
mod render;
mod script;
mod server;
#[cfg(feature = "store-child")]
pub mod store;
mod wheel;

pub use children::child_binary;
pub use peers::HttpEverything;
pub use recorded::RecordedRequest;
pub use render::{context_error_body, count_tokens, error_body, frames, Api, Frame};
pub use script::{Answer, Matcher, Reply, Route, Script, Step};
pub use server::ScriptedServer;
pub use wheel::build_wheel;

/// Starts a server for `script` with each request appended to `log` as a JSON line.
pub async fn start_with_request_log(
    script: Script,
    log: std::fs::File,
) -> std::io::Result<ScriptedServer> {
    ScriptedServer::start_logging(script, Some(log)).await
}
