//! Shared helpers of the engine's integration tests, one part per kind of test (the store
//! tests' fixtures, checker and workload live in `preflight_testkit::store`, which the store
//! crash child shares).
#![allow(dead_code)] // each test binary compiles all of this and uses only its own part

pub mod planning;
