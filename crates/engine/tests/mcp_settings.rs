//! The settings screen's MCP servers, on a real engine and real servers: the reference
//! `everything` server from npm (tests/peers) added as another client would write it, its
//! tools listed as execution-only, a bad entry refused with the engine's error and nothing
//! written, a server that cannot start shown with its stderr, restart and removal.

use std::path::PathBuf;

use preflight_engine::lifecycle::{Engine, EngineOptions, McpServerSave, McpServerState};
use serde_json::{json, Value};

fn everything() -> PathBuf {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    repo.join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js")
}

fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
        repo.join("runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
    })
}

async fn engine(home: &std::path::Path) -> Engine {
    std::fs::write(
        home.join("config.toml"),
        "[provider]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\nmodel = \"m\"\n",
    )
    .unwrap();
    Engine::open(EngineOptions::new(home.to_path_buf(), Some(fs_server()))).await.unwrap()
}

fn save(replaces: Option<&str>, name: &str, entry: Value) -> McpServerSave {
    McpServerSave { replaces: replaces.map(str::to_owned), name: name.into(), entry }
}

#[tokio::test]
async fn a_server_is_added_tested_restarted_and_removed_and_a_bad_entry_changes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let engine = engine(home.path()).await;
    let before = engine.mcp_settings().await.unwrap();
    let names: Vec<&str> = before.servers.iter().map(|s| s.name.as_str()).collect();
    assert!(
        names.contains(&"filesystem") && before.servers.iter().all(|s| s.supplied),
        "{names:?}"
    );

    let entry = json!({"command": "node", "args": [everything(), "stdio"]});
    let tools = engine.test_mcp_server(save(None, "everything", entry.clone())).await.unwrap();
    assert!(tools.len() > 5 && tools.iter().all(|t| !t.planning), "execution only: {tools:?}");
    assert!(tools.iter().any(|t| t.name == "echo"), "{tools:?}");

    let saved = engine.save_mcp_server(save(None, "everything", entry.clone())).await.unwrap();
    let server = saved.servers.iter().find(|s| s.name == "everything").unwrap();
    assert_eq!((server.supplied, server.planning, server.error.as_deref()), (false, false, None));
    let file: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("mcp.json")).unwrap())
            .unwrap();
    assert_eq!(file["mcpServers"]["everything"], entry);

    let written = std::fs::read(home.path().join("mcp.json")).unwrap();
    let refused =
        engine.save_mcp_server(save(None, "broken", json!({"comand": "x"}))).await.unwrap_err();
    assert!(refused.message.contains("mcp.json: unknown field `comand`"), "{}", refused.message);
    assert_eq!(std::fs::read(home.path().join("mcp.json")).unwrap(), written, "nothing written");

    let failing = json!({"command": "node", "args": ["-e", "console.error('no token given'); process.exit(3)"]});
    let failed = engine.test_mcp_server(save(None, "failing", failing)).await.unwrap_err();
    assert!(failed.message.contains("no token given"), "its stderr is shown: {}", failed.message);

    let marked =
        json!({"command": "node", "args": [everything(), "stdio"], "readWhilePlanning": true});
    let tools = engine.test_mcp_server(save(None, "everything", marked)).await.unwrap();
    let planning: Vec<&str> =
        tools.iter().filter(|t| t.planning).map(|t| t.name.as_str()).collect();
    assert!(
        planning.contains(&"echo") && !planning.contains(&"toggle-simulated-logging"),
        "{planning:?}"
    );

    let restarted = engine.restart_mcp_server("everything").await.unwrap();
    let server = restarted.servers.iter().find(|s| s.name == "everything").unwrap();
    assert_eq!(server.state, McpServerState::NotStarted);

    let removed = engine.remove_mcp_server("everything").await.unwrap();
    assert!(removed.servers.iter().all(|s| s.name != "everything"));
    engine.shutdown().await;
}

#[tokio::test]
async fn a_hand_broken_entry_is_shown_with_its_own_error_and_can_be_fixed() {
    let home = tempfile::tempdir().unwrap();
    let good = json!({"command": "node", "args": [everything(), "stdio"]});
    let text = json!({"mcpServers": {"everything": good, "typo": {"command": "x", "argz": []}}});
    std::fs::write(home.path().join("mcp.json"), text.to_string()).unwrap();
    // A file with an error stops the engine at start (the window then shows that error);
    // fixed meanwhile, the entry is shown again by the next read.
    let opened =
        Engine::open(EngineOptions::new(home.path().to_path_buf(), Some(fs_server()))).await;
    assert!(opened.is_err(), "a bad mcp.json is an error at start");
    std::fs::write(
        home.path().join("mcp.json"),
        json!({"mcpServers": {"everything": good}}).to_string(),
    )
    .unwrap();
    let engine = engine(home.path()).await;
    std::fs::write(home.path().join("mcp.json"), text.to_string()).unwrap();
    let settings = engine.mcp_settings().await.unwrap();
    let typo = settings.servers.iter().find(|s| s.name == "typo").unwrap();
    assert!(
        typo.error.as_deref().unwrap().contains("server `typo`: unknown field `argz`"),
        "{typo:?}"
    );
    let fixed = engine
        .save_mcp_server(save(Some("typo"), "typo", json!({"command": "x", "args": []})))
        .await
        .unwrap();
    assert!(fixed.servers.iter().all(|s| s.error.is_none()), "{:?}", fixed.servers);
    engine.shutdown().await;
}
