//! Shared helpers of the store's integration tests: the planning walk-throughs (`planning`).
//! The fixtures, the checker and the workload live in `preflight_testkit::store`, which the
//! store crash child shares.
#![allow(dead_code)] // each test binary compiles every part and uses only its own

pub mod planning;
