//! Shared helpers of the engine's integration tests: the providers' (`llm`), read from the
//! provider crate's own tests, for the key-origin test that connects real providers; and a
//! data folder whose `config.toml` points at a scripted provider (`home_with_provider`).
#![allow(dead_code)] // each test binary compiles every part and uses only its own

#[path = "../../../llm/tests/support/llm.rs"]
pub mod llm;

/// A temp data folder whose `config.toml` names the OpenAI-compatible server at `base_url`.
pub fn home_with_provider(base_url: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let config =
        format!("[provider]\nkind = \"openai\"\nbase_url = \"{base_url}\"\nmodel = \"m\"\n");
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    home
}
