//! Shared helpers of the engine's integration tests: the providers' (`llm`), read from the
//! provider crate's own tests, for the key-origin test that connects real providers.
#![allow(dead_code)] // each test binary compiles every part and uses only its own

#[path = "../../../llm/tests/support/llm.rs"]
pub mod llm;
