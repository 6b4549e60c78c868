//! Shared helpers of the agent loop's integration tests (`agent`: a store, a chat, a scripted
//! provider and the tools a turn is offered).
#![allow(dead_code)] // each test binary compiles every part and uses only its own

pub mod agent;
