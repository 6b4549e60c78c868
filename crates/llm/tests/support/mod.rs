//! Shared helpers of the providers' integration tests (`llm`: settings for a scripted server,
//! a request, a stream drained). The engine's key-origin test reads the same file.
#![allow(dead_code)] // each test binary compiles every part and uses only its own

pub mod llm;
