//! What an everyday chat client does (DESIGN §15), through the headless API: each module one
//! feature, all against a real `preflight serve` and a scripted provider on loopback.

#[path = "../support/mod.rs"]
mod support;

mod images;
