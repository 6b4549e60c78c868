//! Shared helpers of the engine's integration tests, one part per kind of test: the agent
//! loop (`agent`), the providers (`llm`), the MCP host (`mcp`) and the store's planning
//! walk-throughs (`planning`; the store tests' fixtures, checker and workload live in
//! `preflight_testkit::store`, which the store crash child shares).
#![allow(dead_code)] // each test binary compiles every part and uses only its own

pub mod agent;
pub mod llm;
// Pidfds and /proc: the MCP tests run on unix only, and the other tests need not.
#[cfg(unix)]
pub mod mcp;
pub mod planning;
