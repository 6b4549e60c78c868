//! Shared helpers of the MCP host's integration tests (`mcp`: hosts on the real servers).
#![allow(dead_code)] // each test binary compiles every part and uses only its own

// Pidfds and /proc: the MCP tests run on unix only.
#[cfg(unix)]
pub mod mcp;
