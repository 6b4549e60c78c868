//! Skills and tool search through the headless API, with real peers (DESIGN §17): a
//! workspace's skill is listed and told to the model, its body read through `skill`, and its
//! link out refused; with eight real MCP servers (the filesystem server, `memory`, and the
//! `everything` server six times under other names) the first request carries `tool_search`
//! instead of their tools, the scripted model finds a deferred tool and calls it, and the
//! tool definitions' share of the request is measured against a budget that defers nothing.

mod support;

use std::path::Path;

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner, tool};
use support::{openai_config, Serve};

fn write_skill(workspace: &Path) {
    let folder = workspace.join(".agents/skills/csv-report");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(
        folder.join("SKILL.md"),
        "---\nname: csv-report\ndescription: Summarise a CSV file as a Markdown table\n---\n\
         Read the file, total each numeric column, write report.md. Column rules are in \
         [the rules](rules.md); the template is [here](../../../outside.md).\n",
    )
    .unwrap();
    std::fs::write(folder.join("rules.md"), "Totals go in the last row.").unwrap();
    std::fs::write(workspace.join("outside.md"), "THE OUTSIDE SECRET").unwrap();
}

#[tokio::test]
async fn a_workspace_skill_is_listed_read_through_skill_and_its_link_out_refused() {
    let workspace = tempfile::tempdir().unwrap();
    write_skill(workspace.path());
    let script = Script::new().route(
        planner(),
        [
            tool("skill", json!({"name": "csv-report"})),
            tool("skill", json!({"name": "csv-report", "file": "rules.md"})),
            tool("skill", json!({"name": "csv-report", "file": "../../../outside.md"})),
            plan("Report", &["Total the columns"]),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let ws = workspace.path().display().to_string();
    let id = serve.create_chat(json!({"workspace": ws})).await;

    let (status, skills) = serve.get(&format!("/v1/chats/{id}/skills")).await;
    assert_eq!(status, 200, "{skills}");
    assert_eq!(
        skills["skills"],
        json!([{"name": "csv-report", "description": "Summarise a CSV file as a Markdown table",
                "source": "workspace", "folder": ".agents/skills/csv-report"}])
    );
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Report on data.csv"})).await;
    events.wait_for_phase("awaiting_approval").await;

    let requests = provider.requests();
    let system = requests[0].body["messages"][0]["content"].as_str().unwrap_or_default();
    assert!(
        system.contains(
            "## The workspace's skills\n\n- csv-report: Summarise a CSV file as a Markdown table"
        ),
        "the planner is told of the skill: {system}"
    );
    let results = tool_results(&requests.last().unwrap().body);
    assert_eq!(results.len(), 3, "{results:#?}");
    assert!(results[0].contains("Read the file, total each numeric column"), "{}", results[0]);
    assert!(results[0].contains("the repository's text"), "said whose text it is");
    assert!(results[0].contains("- rules.md"), "the folder's files: {}", results[0]);
    assert!(results[1].contains("Totals go in the last row."), "{}", results[1]);
    assert!(results[2].contains("leads out of the skill's folder"), "{}", results[2]);
    let everything = serde_json::to_string(&requests.last().unwrap().body).unwrap();
    assert!(!everything.contains("THE OUTSIDE SECRET"), "nothing outside the folder was read");
}

/// The tool results of a request's messages, in order.
fn tool_results(body: &Value) -> Vec<String> {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let results = messages.iter().filter(|m| m["role"] == "tool");
    results.map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect()
}

/// The names of the tools a request offers.
fn offered(body: &Value) -> Vec<String> {
    let tools = body["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_owned()).collect()
}

/// The estimated tokens of a request's tool definitions (four bytes a token, as Preflight's
/// estimator counts them).
fn tool_tokens(body: &Value) -> usize {
    body["tools"].to_string().len().div_ceil(4)
}

/// `mcp.json` with the `memory` server and the `everything` server six times (the filesystem
/// server comes with the workspace).
fn eight_servers() -> String {
    let peers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/peers/node_modules");
    let node = |package: &str| {
        let script = peers.join(package).join("dist/index.js").display().to_string();
        json!({"command": "node", "args": [script, "stdio"]})
    };
    let mut servers = serde_json::Map::new();
    servers.insert("memory".into(), node("@modelcontextprotocol/server-memory"));
    for n in 1..=6 {
        servers.insert(format!("everything{n}"), node("@modelcontextprotocol/server-everything"));
    }
    json!({"mcpServers": servers}).to_string()
}

/// Runs one message in a chat without plan mode on a home with the eight servers and
/// `tool_budget`; the requests the model got, and the chat's profile before the message.
async fn run_with_budget(tool_budget: f64, replies: Vec<Reply>) -> (Vec<Value>, Value) {
    let provider = ScriptedServer::start(Script::new().route(anyone(), replies)).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let config =
        format!("{}\n[mcp]\ntool_budget = {tool_budget}\n", openai_config(&provider.openai_url()));
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    std::fs::write(home.path().join("mcp.json"), eight_servers()).unwrap();
    let workspace = tempfile::tempdir().unwrap();
    let serve = Serve::start_in(home);
    let ws = workspace.path().display().to_string();
    let id = serve.create_chat(json!({"workspace": ws, "plan_mode": false})).await;
    let (_, profile) = serve.get(&format!("/v1/chats/{id}/profile")).await;
    let mut events = serve.events(&id).await;
    serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Say hi through echo"}))
        .await;
    events.wait_for_phase("idle").await;
    (provider.requests().into_iter().map(|r| r.body).collect(), profile)
}

#[tokio::test]
async fn eight_servers_wait_behind_tool_search_and_a_found_tool_is_called() {
    let (all, _) = run_with_budget(1.0, vec![Reply::text("Shown everything.")]).await;
    let replies = vec![
        tool("tool_search", json!({"query": "echo"})),
        tool("mcp_everything3_echo", json!({"message": "hi from a deferred tool"})),
        Reply::text("Echoed."),
    ];
    let (searched, profile) = run_with_budget(0.1, replies).await;

    let everything_shown = offered(&all[0]);
    assert!(
        everything_shown.iter().filter(|n| n.starts_with("mcp_")).count() > 60,
        "{everything_shown:?}"
    );
    assert!(!everything_shown.contains(&"tool_search".to_owned()), "nothing deferred at 100%");
    let first = offered(&searched[0]);
    assert!(first.contains(&"tool_search".to_owned()), "{first:?}");
    assert!(!first.contains(&"mcp_everything3_echo".to_owned()), "deferred: {first:?}");
    let deferred = profile["deferred"].as_array().map(Vec::len).unwrap_or_default();
    assert!(deferred > 60, "the profile says what waits: {profile}");

    let found = tool_results(&searched[1]);
    assert!(found[0].contains("mcp_everything3_echo"), "{found:?}");
    assert!(
        offered(&searched[1]).contains(&"mcp_everything3_echo".to_owned()),
        "found, then shown"
    );
    let echoed = tool_results(&searched[2]);
    assert!(echoed[1].contains("hi from a deferred tool"), "the deferred tool ran: {echoed:?}");

    let (with, without) = (tool_tokens(&searched[0]), tool_tokens(&all[0]));
    let ratio = with as f64 / without as f64;
    let count = everything_shown.len();
    println!(
        "tool definitions in the first request: {with} tokens ({} tools) with tool search, \
         {without} ({count} tools) without; ratio {ratio:.3}",
        first.len()
    );
    assert!(ratio <= 0.25, "{with} / {without}");
}
