//! The read-only guarantee against the real `@modelcontextprotocol/server-filesystem`: what
//! each profile sees, what the planner cannot do whatever it asks, and profiles belonging to
//! turns, not to the process.

mod support;

use std::collections::BTreeSet;

use preflight_mcp::{is_valid_name, Profile, READ_ONLY_ALLOWLIST};
use serde_json::json;
use support::mcp::{call, fixture, fixture_entry, pid_of, snapshot, Home};

/// The 14 tools of the pinned server, as `mcp_filesystem_<tool>`.
const FS_TOOLS: [&str; 14] = [
    "read_file",
    "read_text_file",
    "read_media_file",
    "read_multiple_files",
    "write_file",
    "edit_file",
    "create_directory",
    "list_directory",
    "list_directory_with_sizes",
    "directory_tree",
    "move_file",
    "search_files",
    "get_file_info",
    "list_allowed_directories",
];

fn exposed(tools: &[&str]) -> BTreeSet<String> {
    tools.iter().map(|t| format!("mcp_filesystem_{t}")).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn execution_lists_every_filesystem_tool_named_and_cleaned() {
    let home = Home::new();
    let host = home.host();
    let set = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    assert!(set.unavailable.is_empty(), "{:?}", set.unavailable);
    let names: BTreeSet<String> = set.tools.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, exposed(&FS_TOOLS));
    for tool in &set.tools {
        assert!(is_valid_name(&tool.name), "{}", tool.name);
        assert!(!tool.description.is_empty(), "{}", tool.name);
        let schema = tool.input_schema.as_object().unwrap();
        assert_eq!(schema["type"], "object", "{}", tool.name);
        assert!(schema.get("$schema").is_none(), "{}: {schema:?}", tool.name);
        assert!(!tool.input_schema.to_string().contains("$schema"), "{}", tool.name);
    }
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planning_shows_exactly_the_read_only_allowlist() {
    let home = Home::new();
    let host = home.host();
    let set = host.tools(Profile::Planning, Some(home.ws())).await.unwrap();
    let names: BTreeSet<String> = set.tools.iter().map(|t| t.name.clone()).collect();
    assert_eq!(names, exposed(&READ_ONLY_ALLOWLIST));
    assert_eq!(set.tools.len(), 8);
    let view = host.profile_view(Profile::Planning, Some(home.ws())).await.unwrap();
    let wire = serde_json::to_value(&view).unwrap();
    assert_eq!(wire["name"], "planning");
    let listed: BTreeSet<String> = serde_json::from_value(wire["tools"].clone()).unwrap();
    assert_eq!(listed, names);
    let view = host.profile_view(Profile::Execution, Some(home.ws())).await.unwrap();
    assert_eq!(serde_json::to_value(&view).unwrap()["name"], "execution");
    assert_eq!(view.tools.len(), 14);
    host.shutdown().await;
}

/// Every way a planner could change the workspace, by name, although none is shown to it.
fn writes(ws: &std::path::Path) -> Vec<(&'static str, serde_json::Value)> {
    let at = |p: &str| ws.join(p).to_string_lossy().into_owned();
    vec![
        ("write_file", json!({"path": at("new.txt"), "content": "x"})),
        ("write_file", json!({"path": at("src/main.rs"), "content": "overwritten"})),
        (
            "edit_file",
            json!({"path": at("README.md"), "edits": [{"oldText": "hello", "newText": "bye"}]}),
        ),
        ("create_directory", json!({"path": at("made")})),
        ("move_file", json!({"source": at("README.md"), "destination": at("moved.md")})),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_cannot_write_edit_move_or_create_anything() {
    let home = Home::new();
    let host = home.host();
    let before = snapshot(home.ws());
    for (tool, args) in writes(home.ws()) {
        let name = format!("mcp_filesystem_{tool}");
        let out = call(&host, Profile::Planning, Some(home.ws()), &name, args).await;
        assert!(out.is_error, "{name}: {out:?}");
        assert_eq!(
            out.content,
            format!("`{name}` is not available while planning: only the read-only tools you were given can be called")
        );
    }
    // Hidden reads outside the allowlist and made-up names are refused the same way.
    for name in [
        "mcp_filesystem_list_allowed_directories",
        "mcp_filesystem_read_file",
        "mcp_shell_run",
        "write_file",
    ] {
        let out =
            call(&host, Profile::Planning, Some(home.ws()), name, json!({"path": "README.md"}))
                .await;
        assert!(
            out.is_error && out.content.contains("not available while planning"),
            "{name}: {out:?}"
        );
    }
    assert_eq!(snapshot(home.ws()), before, "the workspace changed under the planner");

    // The same calls in the execution profile do write: the refusal was the profile's.
    for (tool, args) in writes(home.ws()) {
        let name = format!("mcp_filesystem_{tool}");
        let out = call(&host, Profile::Execution, Some(home.ws()), &name, args).await;
        assert!(!out.is_error, "{name}: {out:?}");
    }
    assert_eq!(std::fs::read_to_string(home.ws().join("moved.md")).unwrap(), "# Demo\nbye\n");
    assert_eq!(std::fs::read_to_string(home.ws().join("src/main.rs")).unwrap(), "overwritten");
    assert!(home.ws().join("made").is_dir() && home.ws().join("new.txt").is_file());
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_planner_reads_and_gets_each_text_once() {
    let home = Home::new();
    let host = home.host();
    let ws = home.ws();
    let path = ws.join("src/nested/data.txt");
    let out = call(
        &host,
        Profile::Planning,
        Some(ws),
        "mcp_filesystem_read_text_file",
        json!({"path": path}),
    )
    .await;
    assert_eq!((out.is_error, out.content.as_str()), (false, "one\ntwo\n"));
    // A relative path resolves inside the workspace.
    let out = call(
        &host,
        Profile::Planning,
        Some(ws),
        "mcp_filesystem_list_directory",
        json!({"path": "src"}),
    )
    .await;
    assert_eq!((out.is_error, out.content.as_str()), (false, "[FILE] main.rs\n[DIR] nested"));
    let out = call(
        &host,
        Profile::Planning,
        Some(ws),
        "mcp_filesystem_get_file_info",
        json!({"path": "README.md"}),
    )
    .await;
    assert!(!out.is_error && out.content.contains("size: 13"), "{out:?}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_outside_the_workspace_is_a_tool_error() {
    let home = Home::new();
    let other = Home::new();
    let host = home.host();
    for (profile, path) in [
        (Profile::Planning, "/etc/passwd".into()),
        (Profile::Execution, "/etc/passwd".into()),
        (Profile::Planning, other.ws().join("README.md")),
        (Profile::Planning, home.ws().join("../escape.txt")),
    ] {
        let out = call(
            &host,
            profile,
            Some(home.ws()),
            "mcp_filesystem_read_text_file",
            json!({"path": path}),
        )
        .await;
        assert!(out.is_error, "{path:?}: {out:?}");
        assert!(out.content.contains("Access denied"), "{path:?}: {}", out.content);
    }
    // Each workspace has its own server, rooted there.
    let out = call(
        &host,
        Profile::Planning,
        Some(other.ws()),
        "mcp_filesystem_read_text_file",
        json!({"path": other.ws().join("README.md")}),
    )
    .await;
    assert!(!out.is_error, "{out:?}");
    let running = host.running_servers().await.unwrap();
    assert_eq!(running.len(), 2, "{running:?}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chat_without_a_workspace_has_no_filesystem_tools() {
    let home = Home::new();
    let host = home.host();
    for profile in [Profile::Planning, Profile::Execution] {
        let set = host.tools(profile, None).await.unwrap();
        assert!(set.tools.is_empty() && set.unavailable.is_empty(), "{set:?}");
        let out = call(
            &host,
            profile,
            None,
            "mcp_filesystem_read_text_file",
            json!({"path": "/etc/hostname"}),
        )
        .await;
        assert!(out.is_error, "{out:?}");
    }
    assert!(host.running_servers().await.unwrap().is_empty());
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_turns_with_different_profiles_at_once_see_their_own_tools() {
    let home = Home::new();
    let host = home.host();
    let ws = home.ws();
    let (planning, execution) = tokio::join!(
        host.tools(Profile::Planning, Some(ws)),
        host.tools(Profile::Execution, Some(ws))
    );
    assert_eq!(planning.unwrap().tools.len(), 8);
    assert_eq!(execution.unwrap().tools.len(), 14);
    // One server served both.
    assert_eq!(host.running_servers().await.unwrap().len(), 1);

    let write = |content: &str| json!({"path": ws.join("out.txt"), "content": content});
    let (planner, executor) = tokio::join!(
        call(&host, Profile::Planning, Some(ws), "mcp_filesystem_write_file", write("planner")),
        call(&host, Profile::Execution, Some(ws), "mcp_filesystem_write_file", write("executor")),
    );
    assert!(
        planner.is_error && planner.content.contains("not available while planning"),
        "{planner:?}"
    );
    assert!(!executor.is_error, "{executor:?}");
    assert_eq!(std::fs::read_to_string(ws.join("out.txt")).unwrap(), "executor");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn switching_profiles_does_not_respawn_servers() {
    let home = Home::new();
    let host = home.host();
    let ws = Some(home.ws());
    host.tools(Profile::Planning, ws).await.unwrap();
    let pid = pid_of(&host, "filesystem").await;
    for profile in [Profile::Execution, Profile::Planning, Profile::Execution, Profile::Planning] {
        host.profile_view(profile, ws).await.unwrap();
        call(&host, profile, ws, "mcp_filesystem_list_directory", json!({"path": "."})).await;
    }
    assert_eq!(pid_of(&host, "filesystem").await, pid);
    assert_eq!(host.running_servers().await.unwrap().len(), 1);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn planning_takes_context7_and_leaves_other_servers_out_unstarted() {
    let home = Home::new();
    // The fixture under three names. Classification looks at what runs, never at the name:
    // a copy installed as the Context7 package is Context7, the other two are `Other`.
    let package = home.data.path().join("node_modules/@upstash/context7-mcp");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::copy(fixture(), package.join("index.js")).unwrap();
    let context7 = json!({"command": "node", "args": [package.join("index.js")]});
    home.write_mcp_json(&json!({"mcpServers": {
        "context7": context7,
        "code-sandbox": fixture_entry(&[]),
        "github": fixture_entry(&[]),
    }}));
    let host = home.host();
    let ws = Some(home.ws());
    let fixture_tools = ["echo", "hang", "big", "helper_pid", "cancelled"];
    let planning = host.profile_view(Profile::Planning, ws).await.unwrap();
    let mut want: BTreeSet<String> =
        fixture_tools.iter().map(|t| format!("mcp_context7_{t}")).collect();
    want.extend(exposed(&READ_ONLY_ALLOWLIST));
    assert_eq!(planning.tools.iter().cloned().collect::<BTreeSet<_>>(), want);
    let running: BTreeSet<String> =
        host.running_servers().await.unwrap().into_iter().map(|r| r.server).collect();
    assert_eq!(
        running,
        ["context7", "filesystem"].map(String::from).into(),
        "planning starts nothing else"
    );

    let out =
        call(&host, Profile::Planning, ws, "mcp_context7_echo", json!({"text": "docs"})).await;
    assert_eq!((out.is_error, out.content.as_str()), (false, "docs"));
    for name in ["mcp_github_echo", "mcp_code-sandbox_echo"] {
        let out = call(&host, Profile::Planning, ws, name, json!({"text": "x"})).await;
        assert!(
            out.is_error && out.content.contains("not available while planning"),
            "{name}: {out:?}"
        );
    }
    assert_eq!(host.running_servers().await.unwrap().len(), 2);

    let execution = host.profile_view(Profile::Execution, ws).await.unwrap();
    assert_eq!(execution.tools.len(), 14 + 3 * fixture_tools.len());
    let out =
        call(&host, Profile::Execution, ws, "mcp_code-sandbox_echo", json!({"text": "run"})).await;
    assert_eq!(out.content, "run");
    assert_eq!(host.running_servers().await.unwrap().len(), 4);
    host.shutdown().await;
}
