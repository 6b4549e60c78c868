//! The read-only guarantee through the API, against the real npm filesystem server: the
//! planner reads the workspace but cannot change it, whatever it asks; two chats at once
//! each see their own profile.

mod support;

use std::collections::BTreeMap;
use std::path::Path;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::json;
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

/// Every file and folder under `root` with its bytes (folders as `None`).
fn snapshot(root: &Path) -> BTreeMap<String, Option<Vec<u8>>> {
    let mut entries = BTreeMap::new();
    let mut stack = vec![root.to_owned()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let key = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                entries.insert(key, None);
                stack.push(path);
            } else {
                entries.insert(key, Some(std::fs::read(&path).unwrap()));
            }
        }
    }
    entries
}

const READ_ONLY: [&str; 8] = [
    "mcp_filesystem_directory_tree",
    "mcp_filesystem_get_file_info",
    "mcp_filesystem_list_directory",
    "mcp_filesystem_list_directory_with_sizes",
    "mcp_filesystem_read_media_file",
    "mcp_filesystem_read_multiple_files",
    "mcp_filesystem_read_text_file",
    "mcp_filesystem_search_files",
];

#[tokio::test]
async fn the_planner_reads_the_workspace_and_cannot_change_it() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::write(workspace.path().join("notes.txt"), "the secret word is marmalade\n").unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    std::fs::write(workspace.path().join("src/main.rs"), "fn main() {}\n").unwrap();
    let file = |name: &str| workspace.path().join(name).display().to_string();
    let attempts = Answer::new()
        .tool_call("mcp_filesystem_read_text_file", json!({"path": file("notes.txt")}))
        .tool_call("mcp_filesystem_write_file", json!({"path": file("notes.txt"), "content": "overwritten"}))
        .tool_call("mcp_filesystem_create_directory", json!({"path": file("new_dir")}))
        .tool_call("mcp_filesystem_move_file", json!({"source": file("src/main.rs"), "destination": file("moved.rs")}))
        .tool_call("mcp_filesystem_edit_file", json!({"path": file("src/main.rs"), "edits": [{"oldText": "main", "newText": "hacked"}]}))
        .into();
    let script = Script::new()
        .route(planner(), [attempts, plan("Read-only", &["look"])])
        .route(anyone(), [Reply::text("ok")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let before = snapshot(workspace.path());
    let mut events = serve.events(&id).await;
    serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "What is the secret word?"}))
        .await;
    events.wait_for_phase("awaiting_approval").await;

    assert_eq!(snapshot(workspace.path()), before, "the workspace is byte-identical");
    let requests = provider.requests();
    let mut offered = requests[0].tool_names();
    offered.sort();
    assert_eq!(offered.pop().as_deref(), Some("plan_status"), "the read-only plan_status");
    assert_eq!(offered, READ_ONLY, "the planner is shown the read-only allowlist only");
    let second = requests[1].body.to_string();
    assert!(second.contains("marmalade"), "the planner read the file");
    assert_eq!(second.matches("not available while planning").count(), 4, "{second}");
    assert!(events.seen.iter().all(|(name, _)| name != "tool"), "a quiet turn shows no tool calls");
    let chat = serve.chat(&id).await;
    assert_eq!(
        chat["messages"].as_array().unwrap().len(),
        2,
        "the planner's tool calls are not stored"
    );
}

#[tokio::test]
async fn two_chats_at_once_see_their_own_profiles() {
    let workspace = tempfile::tempdir().unwrap();
    let script = Script::new()
        .route(planner(), [Answer::new().stall().into()])
        .route(anyone(), [Answer::new().text("working").stall().into()]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let planning = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let executing =
        serve.create_chat(json!({"workspace": workspace.path(), "plan_mode": false})).await;
    let planning_events = serve.events(&planning).await;
    let mut executing_events = serve.events(&executing).await;
    serve.post(&format!("/v1/chats/{planning}/messages"), json!({"content": "Plan this"})).await;
    serve.post(&format!("/v1/chats/{executing}/messages"), json!({"content": "Do that"})).await;
    executing_events.wait_for("the executor's first tokens", |name, _| name == "delta").await;
    provider.wait_for_requests(2).await;
    assert_eq!(planning_events.seen.iter().filter(|(name, _)| name == "delta").count(), 0);

    let (_, planner_profile) = serve.get(&format!("/v1/chats/{planning}/profile")).await;
    let (_, executor_profile) = serve.get(&format!("/v1/chats/{executing}/profile")).await;
    assert_eq!(planner_profile["name"], "planning");
    let mut planner_tools: Vec<String> =
        serde_json::from_value(planner_profile["tools"].clone()).unwrap();
    planner_tools.sort();
    assert_eq!(planner_tools, READ_ONLY);
    assert_eq!(executor_profile["name"], "execution");
    let executor_tools = executor_profile["tools"].as_array().unwrap();
    assert!(executor_tools.contains(&json!("mcp_filesystem_write_file")), "{executor_profile}");
    assert!(!executor_tools.contains(&json!("turn_plan")), "no plan in a chat without plan mode");

    for request in provider.requests() {
        let tools = request.tool_names();
        if request.system().contains("plan-questions") {
            assert!(!tools.contains(&"mcp_filesystem_write_file".to_owned()));
        } else {
            assert!(tools.contains(&"mcp_filesystem_write_file".to_owned()));
        }
    }
    serve.post(&format!("/v1/chats/{planning}/stop"), json!(null)).await;
    serve.post(&format!("/v1/chats/{executing}/stop"), json!(null)).await;
    assert_eq!(serve.get(&format!("/v1/chats/{planning}/profile")).await.1["name"], "execution");
}

/// Issue 14, finding #2: the workspace's `AGENTS.md` reaches the planner only as a regular
/// file inside the workspace, cut at 64 KiB; a symlink to a key outside sends nothing.
#[tokio::test]
async fn workspace_instructions_are_a_capped_regular_file_never_a_symlink_out() {
    let outside = tempfile::tempdir().unwrap();
    let key = outside.path().join("id_ed25519");
    std::fs::write(&key, "-----BEGIN OPENSSH PRIVATE KEY----- s3cr3t-key\n").unwrap();
    let linked = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(&key, linked.path().join("AGENTS.md")).unwrap();
    let huge = tempfile::tempdir().unwrap();
    std::fs::write(huge.path().join("AGENTS.md"), "Keep it short. ".repeat(70_000)).unwrap();
    let script = Script::new()
        .route(planner(), [plan("One", &["look"]), plan("Two", &["look"])])
        .route(anyone(), [Reply::text("ok")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    for workspace in [linked.path(), huge.path()] {
        let id = serve.create_chat(json!({"workspace": workspace})).await;
        let mut events = serve.events(&id).await;
        serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Plan it"})).await;
        events.wait_for_phase("awaiting_approval").await;
    }
    let requests = provider.requests();
    assert_eq!(requests.len(), 2);
    assert!(!requests[0].body.to_string().contains("s3cr3t-key"), "the key stays home");
    let system = requests[1].system();
    assert!(system.contains("Keep it short."), "the start of a big file is used");
    assert!(system.contains("(truncated at 64 KiB)"), "the cut is named");
    let repeats = system.matches("Keep it short. ").count();
    assert!(repeats * 15 <= 64 * 1024, "at most the cap: {repeats} repeats");
}
