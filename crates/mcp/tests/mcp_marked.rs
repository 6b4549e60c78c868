//! A server marked `readWhilePlanning` (the reference `everything` server from npm, whose
//! tools carry `readOnlyHint`): the planner is offered exactly its read-only tools, a
//! non-read-only one is refused at dispatch while planning, and an unmarked server stays
//! absent from planning (DESIGN §4 by default).

mod support;

use std::path::PathBuf;

use preflight_mcp::Profile;
use serde_json::json;
use support::mcp::{call, Home};

fn everything(marked: bool) -> serde_json::Value {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let script =
        repo.join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    json!({"mcpServers": {"everything": {"command": "node", "args": [script, "stdio"], "readWhilePlanning": marked}}})
}

fn names(set: &preflight_mcp::ToolSet, server: &str) -> Vec<String> {
    let prefix = format!("mcp_{server}_");
    set.tools.iter().filter_map(|t| t.name.strip_prefix(&prefix).map(str::to_owned)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_marked_server_offers_the_planner_its_read_only_tools_only_and_dispatch_checks_again() {
    let home = Home::new();
    home.write_mcp_json(&everything(true));
    let host = home.host();
    let planning = host.tools(Profile::Planning, Some(home.ws())).await.unwrap();
    let seen = names(&planning, "everything");
    assert!(seen.contains(&"echo".to_owned()) && seen.contains(&"get-sum".to_owned()), "{seen:?}");
    for writer in ["toggle-simulated-logging", "gzip-file-as-resource"] {
        assert!(!seen.contains(&writer.to_owned()), "{writer} is not read-only: {seen:?}");
    }
    let execution = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    assert!(names(&execution, "everything").len() > seen.len(), "execution sees every tool");

    let echo = call(
        &host,
        Profile::Planning,
        Some(home.ws()),
        "mcp_everything_echo",
        json!({"message": "hi"}),
    )
    .await;
    assert!(!echo.is_error && echo.content.contains("hi"), "{echo:?}");
    let refused = call(
        &host,
        Profile::Planning,
        Some(home.ws()),
        "mcp_everything_toggle-simulated-logging",
        json!({}),
    )
    .await;
    assert!(refused.is_error, "a non-read-only tool of a marked server is refused while planning");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unmarked_server_is_absent_while_planning() {
    let home = Home::new();
    home.write_mcp_json(&everything(false));
    let host = home.host();
    let planning = host.tools(Profile::Planning, Some(home.ws())).await.unwrap();
    assert!(names(&planning, "everything").is_empty());
    let echo = call(
        &host,
        Profile::Planning,
        Some(home.ws()),
        "mcp_everything_echo",
        json!({"message": "hi"}),
    )
    .await;
    assert!(echo.is_error, "{echo:?}");
    assert!(
        host.running_servers().await.unwrap().iter().all(|s| s.server != "everything"),
        "not even started"
    );
    host.shutdown().await;
}
