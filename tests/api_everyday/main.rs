//! The everyday client through the headless API (DESIGN §15, issue 50): a model per chat,
//! what the calls used and cost, images, export and import. One test binary, one module per
//! feature, so that CI links it once.

#[path = "../support/mod.rs"]
mod support;

mod export;
mod images;
mod models;
mod usage;
