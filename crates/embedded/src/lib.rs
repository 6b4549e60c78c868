//! The embedded model: a small GGUF model run in this process on llama.cpp (built from source
//! by `llama-cpp-sys-2`, CPU only), so that a fresh install answers offline (DESIGN §8, §10).
//!
//! - `catalog.rs` — the models Preflight fetches from the package index, pinned by SHA-256.
//! - `local.rs` — [`LlamaModels`], the engine's `LocalModels`: resolves and loads models.
//! - `provider.rs` — [`EmbeddedProvider`], the engine's `Provider`: streaming, cancellation,
//!   the model loaded at its first use ([`ModelHandle`]).
//! - `model.rs` — one loaded model and the generation loop (context-size guard, sampling).
//! - `grammar.rs` — the planner's GBNF: exactly one valid `plan-questions` or `plan` fence.
//! - `prompt.rs` — a request as chat-template messages (pure); `utf8.rs` — text from pieces.
//! - `threads.rs` — the thread count, chosen from the cores other processes leave idle.
//! - `backend.rs` — llama.cpp's process-wide state, its log, the CPU check.
//!
//! **Boundary:** no network and no prompt policy of its own beyond the notes that keep the
//! user informed (see `provider.rs`); the engine depends on none of this (it defines the
//! `LocalModels` seam and the binary passes [`LlamaModels`] in).
//! **Invariant:** nothing here panics or aborts on a model's output: a context too small is
//! `ContextTooLong`, a failed decode is an error, and the grammar is never fed a token it
//! refused.

mod backend;
pub mod catalog;
pub mod grammar;
mod local;
mod model;
pub mod prompt;
mod provider;
pub mod threads;
mod utf8;

pub use local::LlamaModels;
pub use model::{EmbeddedModel, GenerateOptions, Generation, Stats, DEFAULT_MAX_TOKENS};
pub use provider::{planner_note, EmbeddedProvider, Loader, ModelHandle, TOOLS_NOTE};
pub use threads::Threads;
