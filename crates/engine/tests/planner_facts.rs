//! The planner's facts are computed when its turn starts (DESIGN §14), on a real engine with
//! the scripted provider: a Context7 server added in Settings (the reference `everything`
//! server, run from a folder named as Context7's package so it is classed as Context7) is a
//! fact of the next planning and its tools are offered, without a restart; removed, the fact
//! goes with it.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use preflight_engine::chat::Phase;
use preflight_engine::events::Event;
use preflight_engine::lifecycle::{Engine, EngineOptions, McpServerSave, NewChat};
use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::json;
use support::home_with_provider;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        repo().join("runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js")
    })
}

fn plan() -> Reply {
    let plan = json!({"title": "T", "aim": "A", "steps": [{"action": "Do it", "expected": "done"}],
                      "libraries": [], "sandbox": {"policy": "create", "notes": ""}});
    Reply::text(&format!("```plan\n{plan}\n```"))
}

/// Plans in a new chat and returns the system prompt and tool names the planner was sent.
async fn plan_once(engine: &Engine, provider: &ScriptedServer) -> (String, Vec<String>) {
    let chat = engine.create_chat(NewChat::default()).unwrap();
    let mut events = engine.subscribe(&chat.id).unwrap();
    engine.send(&chat.id, "Look up the docs", Vec::new()).unwrap();
    let waited = tokio::time::timeout(Duration::from_secs(60), async {
        loop {
            if let Ok(Event::PlanStatus { phase: Phase::AwaitingApproval, .. }) =
                events.recv().await
            {
                return;
            }
        }
    });
    waited.await.expect("the plan card");
    let request = provider.requests().last().cloned().unwrap();
    let system = request.body["messages"][0]["content"].as_str().unwrap().to_owned();
    let tools = request.body["tools"].as_array().cloned().unwrap_or_default();
    let names = tools.iter().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect();
    (system, names)
}

/// The `everything` server's folder, reached through a link named as Context7's package.
fn context7_lookalike(dir: &Path) -> PathBuf {
    let everything =
        repo().join("tests/peers/node_modules/@modelcontextprotocol/server-everything");
    let link = dir.join("context7-mcp");
    std::os::unix::fs::symlink(everything.canonicalize().unwrap(), &link).unwrap();
    link.join("dist/index.js")
}

#[tokio::test(flavor = "multi_thread")]
async fn context7_added_in_settings_is_a_fact_of_the_next_planning_without_a_restart() {
    let script = Script::new().forever(Default::default(), plan());
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = home_with_provider(&provider.openai_url());
    let engine = Engine::open(EngineOptions::new(home.path().to_path_buf(), Some(fs_server())))
        .await
        .unwrap();

    let (system, _) = plan_once(&engine, &provider).await;
    assert!(system.contains("- Context7 is not configured"), "{system}");

    let script = context7_lookalike(home.path());
    let entry = json!({"command": "node", "args": [script, "stdio"]});
    let save = McpServerSave { replaces: None, name: "docs".into(), entry };
    engine.save_mcp_server(save).await.unwrap();
    let (system, tools) = plan_once(&engine, &provider).await;
    assert!(system.contains("- Context7 is available"), "{system}");
    assert!(tools.iter().any(|name| name == "mcp_docs_echo"), "its tools are offered: {tools:?}");

    engine.remove_mcp_server("docs").await.unwrap();
    let (system, tools) = plan_once(&engine, &provider).await;
    assert!(system.contains("- Context7 is not configured"), "{system}");
    assert!(!tools.iter().any(|name| name.starts_with("mcp_docs_")), "{tools:?}");
    engine.shutdown().await;
}
