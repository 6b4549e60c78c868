//! The everyday client of DESIGN §15 through a real `preflight serve` and the `preflight`
//! command: one test binary, a module per feature.

#[path = "../support/mod.rs"]
mod support;

mod export;
