//! A workspace is a cloned repository, and hostile: nothing in it may run when the host
//! starts servers (issue 14, findings #1 and #7). Programs are found in Preflight's own
//! `PATH`, never in the workspace; a missing filesystem server is a clear error; a server
//! is classified by the program or package it runs, never by later arguments or its name.

mod support;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use preflight_mcp::{classify, McpHost, McpOptions, Profile, ServerClass};
use serde_json::json;
use support::mcp::{fixture, fixture_entry, Home};

/// Plants in `ws` what a hostile repository would: a `node` shim, a script named like the
/// host's old fallback, and a `tool` next to them, each writing a marker into `markers` when
/// it runs.
fn plant(ws: &Path, markers: &Path) {
    let shim = |name: &str| {
        let marker = markers.join(name);
        let path = ws.join(name);
        std::fs::write(&path, format!("#!/bin/sh\necho ran > '{}'\n", marker.display())).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    };
    shim("node");
    shim("tool");
    let marker = markers.join("server-filesystem-not-installed");
    std::fs::write(
        ws.join("server-filesystem-not-installed"),
        format!("require('fs').writeFileSync({:?}, 'ran');\n", marker.display().to_string()),
    )
    .unwrap();
    std::fs::create_dir_all(ws.join("node_modules/.bin")).unwrap();
}

fn ran(markers: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(markers)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// `PATH` as a careless user might have it: the current folder first.
fn path_with_dot() -> Vec<(String, Option<std::ffi::OsString>)> {
    let mut path = std::ffi::OsString::from(".:");
    path.push(std::env::var_os("PATH").unwrap_or_default());
    vec![("PATH".into(), Some(path))]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_filesystem_server_is_a_clear_error_and_runs_nothing_from_the_workspace() {
    let home = Home::new();
    let markers = tempfile::tempdir().unwrap();
    plant(home.ws(), markers.path());
    // What an installed binary without `runtime/` passed before: a bare, relative name.
    let mut config = McpOptions::new(home.data.path(), "server-filesystem-not-installed");
    config.inherited_env = path_with_dot();
    let host = McpHost::start(config).unwrap();

    let error = host.profile_view(Profile::Planning, Some(home.ws())).await;
    let set = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    host.shutdown().await;

    assert_eq!(ran(markers.path()), Vec::<String>::new(), "nothing of the workspace ran");
    let error = error.expect_err("GET …/profile says the filesystem server is missing");
    let message = error.to_string();
    for needed in ["filesystem MCP server", "not installed", "PREFLIGHT_FS_SERVER", "setup"] {
        assert!(message.contains(needed), "`{needed}` in: {message}");
    }
    assert_eq!(set.unavailable.len(), 1, "{set:?}");
    assert_eq!(set.unavailable[0].server, "filesystem");
    assert_eq!(set.unavailable[0].error.to_string(), message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn programs_are_found_in_preflights_path_never_in_the_workspace() {
    let home = Home::new();
    let markers = tempfile::tempdir().unwrap();
    plant(home.ws(), markers.path());
    let mut entry = fixture_entry(&[]);
    entry["args"].as_array_mut().unwrap().push(json!("${workspace}"));
    home.write_mcp_json(&json!({"mcpServers": {
        "fixture": entry,
        "relative": {"command": "./tool", "args": ["${workspace}"]},
        "bare": {"command": "tool", "args": ["${workspace}"]},
    }}));
    let mut config = home.config();
    config.inherited_env = path_with_dot();
    let host = McpHost::start(config).unwrap();
    let set = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    host.shutdown().await;

    assert_eq!(ran(markers.path()), Vec::<String>::new(), "nothing of the workspace ran");
    assert!(
        set.tools.iter().any(|t| t.name == "mcp_fixture_echo"),
        "`node` is the real one: {set:?}"
    );
    let mut missing: Vec<(String, String)> =
        set.unavailable.iter().map(|u| (u.server.clone(), u.error.to_string())).collect();
    missing.sort();
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert_eq!(missing[0].0, "bare");
    assert!(missing[0].1.contains("`tool` was not found in PATH"), "{}", missing[0].1);
    assert_eq!(missing[1].0, "relative");
    assert!(missing[1].1.contains("`./tool` is a relative path"), "{}", missing[1].1);
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn classification_looks_at_the_program_or_package_only() {
    use ServerClass::*;
    let table: &[(&str, &str, &[&str], ServerClass)] = &[
        // The finding: a repository path that happens to carry a signature.
        ("git", "uvx", &["mcp-server-git", "--repository", "~/src/context7-mcp"], Other),
        ("git", "npx", &["-y", "mcp-git", "/src/server-filesystem"], Other),
        ("git", "node", &["/opt/git/index.js", "/src/@upstash/context7-mcp"], Other),
        ("x", "/usr/bin/mcp-git", &["--root", "/w/mcp-server-filesystem"], Other),
        // A name alone classifies nothing.
        ("context7", "python3", &["c7.py"], Other),
        ("filesystem", "/opt/my-fs-server", &["/w"], Other),
        ("sandbox", "python3", &["box.py"], Other),
        // What runs decides.
        ("docs", "npx", &["-y", "@upstash/context7-mcp@latest"], Context7),
        ("docs", "npx", &["--yes", "--package=@upstash/context7-mcp", "context7-mcp"], Context7),
        ("docs", "uvx", &["--from", "context7-mcp", "c7"], Context7),
        (
            "fs",
            "node",
            &["/r/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"],
            Filesystem,
        ),
        ("fs", "/usr/local/bin/mcp-server-filesystem", &["/w"], Filesystem),
        ("box", "preflight-sandbox", &["${workspace}"], CodeSandbox),
    ];
    let wrong: Vec<String> = table
        .iter()
        .filter(|(name, command, list, want)| classify(name, command, &args(list)) != *want)
        .map(|(name, command, list, want)| format!("{name}: {command} {list:?} is not {want:?}"))
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_whose_argument_names_a_reader_is_not_offered_while_planning() {
    let home = Home::new();
    let entry = |extra: &str| json!({"command": "node", "args": [fixture(), extra]});
    home.write_mcp_json(&json!({"mcpServers": {
        "git": entry("/home/u/src/context7-mcp"),
        "context7": entry("--port=1"),
    }}));
    let host = home.host();
    let set = host.tools(Profile::Planning, Some(home.ws())).await.unwrap();
    host.shutdown().await;
    let names: Vec<&str> = set.tools.iter().map(|t| t.name.as_str()).collect();
    assert!(
        names.iter().all(|n| n.starts_with("mcp_filesystem_")),
        "only the filesystem reader while planning: {names:?}"
    );
}

/// Where the fixture's script is, for the servers view below.
fn fixture_path() -> PathBuf {
    PathBuf::from(fixture())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_host_tells_each_servers_class_and_program() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"fixture": fixture_entry(&[])}}));
    let host = home.host();
    let servers = host.servers();
    host.shutdown().await;
    let summary: Vec<(String, ServerClass, String)> =
        servers.iter().map(|s| (s.name.clone(), s.class, s.program.clone())).collect();
    assert_eq!(
        summary,
        [
            ("fixture".to_string(), ServerClass::Other, fixture_path().display().to_string()),
            (
                "filesystem".to_string(),
                ServerClass::Filesystem,
                support::mcp::fs_server().display().to_string()
            ),
        ]
    );
}

/// Issue 46: through the real filesystem server, a submodule's `lib/.git` moved away and a
/// planted repository written in its place would run its `core.fsmonitor` at the user's next
/// `git status`. Every such write is refused at dispatch, whatever the depth or the case,
/// and nothing changes on disk.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_git_folder_at_any_depth_is_written_through_the_filesystem_server() {
    let home = Home::new();
    let ws = home.ws();
    std::fs::create_dir_all(ws.join("lib")).unwrap();
    std::fs::write(ws.join("lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
    std::fs::write(ws.join("lib/main.c"), "int main;\n").unwrap();
    let before = support::mcp::snapshot(ws);
    let host = home.host();
    let attempts = [
        ("move_file", json!({"source": "lib/.git", "destination": "lib/x"})),
        ("write_file", json!({"path": "lib/.git/config", "content": "[core]\nfsmonitor = x\n"})),
        ("move_file", json!({"source": "lib/main.c", "destination": "lib/.GIT"})),
        ("create_directory", json!({"path": "vendor/dep/.Git/hooks"})),
        ("write_file", json!({"path": ".dwp/plans/PLAN_x/PLAN.md", "content": "# x\n"})),
    ];
    let mut outputs = Vec::new();
    for (tool, arguments) in attempts {
        let name = format!("mcp_filesystem_{tool}");
        let out = support::mcp::call(&host, Profile::Execution, Some(ws), &name, arguments).await;
        outputs.push((tool, out));
    }
    let allowed = support::mcp::call(
        &host,
        Profile::Execution,
        Some(ws),
        "mcp_filesystem_write_file",
        json!({"path": "lib/.gitignore", "content": "build/\n"}),
    )
    .await;
    host.shutdown().await;

    for (tool, out) in &outputs {
        assert!(out.is_error && out.content.contains("may not write into"), "{tool}: {out:?}");
    }
    assert!(!allowed.is_error, "`.gitignore` is another name: {allowed:?}");
    std::fs::remove_file(ws.join("lib/.gitignore")).unwrap();
    assert_eq!(support::mcp::snapshot(ws), before, "nothing changed on disk");
}

/// Issue 46: a `PATH` folder naming the workspace through a link (another spelling of the same
/// folder), and a program outside that is a link to one inside, are the workspace too: the
/// repository's `node` and `tool` never run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workspace_by_another_spelling_on_path_is_still_the_workspace() {
    let home = Home::new();
    let markers = tempfile::tempdir().unwrap();
    plant(home.ws(), markers.path());
    let spellings = tempfile::tempdir().unwrap();
    let alias = spellings.path().join("checkout");
    std::os::unix::fs::symlink(home.ws(), &alias).unwrap();
    let linked = spellings.path().join("bin");
    std::fs::create_dir(&linked).unwrap();
    std::os::unix::fs::symlink(home.ws().join("tool"), linked.join("tool")).unwrap();
    let mut entry = fixture_entry(&[]);
    entry["args"].as_array_mut().unwrap().push(json!("${workspace}"));
    home.write_mcp_json(&json!({"mcpServers": {
        "fixture": entry,
        "bare": {"command": "tool", "args": ["${workspace}"]},
    }}));
    let mut path = std::ffi::OsString::from(format!("{}:{}:", alias.display(), linked.display()));
    path.push(std::env::var_os("PATH").unwrap_or_default());
    let mut config = home.config();
    config.inherited_env = vec![("PATH".into(), Some(path))];
    let host = McpHost::start(config).unwrap();
    let set = host.tools(Profile::Execution, Some(&alias)).await.unwrap();
    host.shutdown().await;

    assert_eq!(ran(markers.path()), Vec::<String>::new(), "nothing of the workspace ran");
    assert!(set.tools.iter().any(|t| t.name == "mcp_fixture_echo"), "the real `node`: {set:?}");
    let bare = set.unavailable.iter().find(|u| u.server == "bare").expect("`tool` not started");
    assert!(bare.error.to_string().contains("`tool` was not found in PATH"), "{}", bare.error);
}
