//! The host against servers that die, hang, flood or oversize: each failure is noticed,
//! bounded and explained, and the host stays usable. Real processes throughout: the npm
//! filesystem server and the scripted fixture (tests/fixtures/mcp/server.js).

mod support;

use std::path::Path;
use std::time::Duration;

use preflight_mcp::{McpError, McpHost, Profile};
use serde_json::json;
use support::mcp::{call, fixture_entry, group_members, is_alive, kill, pid_of, wait_exit, Home};

/// Waits for `pid` to exit, failing the test if it outlives `limit` (a safety net only).
async fn expect_exit(pid: u32, what: &str) {
    let limit = Duration::from_secs(20);
    if tokio::time::timeout(limit, wait_exit(pid)).await.is_err() {
        panic!("{what} (pid {pid}) is still alive after {limit:?}");
    }
    assert!(!is_alive(pid), "{what} (pid {pid})");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_killed_outside_is_noticed_and_respawned_on_next_call() {
    let home = Home::new();
    let host = home.host();
    let ws = Some(home.ws());
    host.tools(Profile::Execution, ws).await.unwrap();
    let first = pid_of(&host, "filesystem").await;
    kill(first, libc::SIGKILL);
    wait_exit(first).await;
    let out =
        call(&host, Profile::Planning, ws, "mcp_filesystem_list_directory", json!({"path": "."}))
            .await;
    assert!(!out.is_error && out.content.contains("[FILE] README.md"), "{out:?}");
    let second = pid_of(&host, "filesystem").await;
    assert_ne!(first, second);
    assert!(is_alive(second));
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_start_that_hangs_times_out_with_a_clear_error() {
    let home = Home::new();
    let pid_file = home.data.path().join("stuck.pid");
    let script = format!("echo $$ > '{}'; exec sleep 1000", pid_file.display());
    home.write_mcp_json(&json!({"mcpServers": {
        "stuck": {"command": "sh", "args": ["-c", script]},
        "fine": fixture_entry(&[]),
    }}));
    let mut config = home.config();
    config.start_timeout = Duration::from_millis(1500);
    let host = McpHost::start(config).unwrap();

    let set = host.tools(Profile::Execution, None).await.unwrap();
    let timeout = Duration::from_millis(1500);
    assert_eq!(set.unavailable.len(), 1, "{set:?}");
    assert_eq!(
        set.unavailable[0].error,
        McpError::StartTimeout { server: "stuck".into(), timeout }
    );
    assert_eq!(
        set.unavailable[0].error.to_string(),
        "MCP server `stuck` did not finish starting within 1500 ms"
    );
    // The other server is unaffected.
    assert!(set.tools.iter().any(|t| t.name == "mcp_fine_echo"), "{set:?}");
    // The hung process was killed, not left behind.
    let pid: u32 = std::fs::read_to_string(&pid_file).unwrap().trim().parse().unwrap();
    expect_exit(pid, "the hung server").await;
    // A model naming its tools is told why.
    let out = call(&host, Profile::Execution, None, "mcp_stuck_anything", json!({})).await;
    assert_eq!(
        (out.is_error, out.content.as_str()),
        (true, "`mcp_stuck_anything` is not available: MCP server `stuck` did not finish starting within 1500 ms")
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_that_never_answers_times_out_and_the_host_stays_usable() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"slow": fixture_entry(&[])}}));
    let mut config = home.config();
    config.call_timeout = Duration::from_millis(300);
    let host = McpHost::start(config).unwrap();
    let out = call(&host, Profile::Execution, None, "mcp_slow_hang", json!({})).await;
    assert_eq!(
        (out.is_error, out.content.as_str()),
        (true, "`mcp_slow_hang` did not answer within 300 ms; the call was cancelled")
    );
    let pid = pid_of(&host, "slow").await;
    let out =
        call(&host, Profile::Execution, None, "mcp_slow_echo", json!({"text": "still here"})).await;
    assert_eq!((out.is_error, out.content.as_str()), (false, "still here"));
    // The server was told the hung request is cancelled.
    let out = call(&host, Profile::Execution, None, "mcp_slow_cancelled", json!({})).await;
    let cancelled: Vec<serde_json::Value> = serde_json::from_str(&out.content).unwrap();
    assert_eq!(cancelled.len(), 1, "{out:?}");
    assert_eq!(pid_of(&host, "slow").await, pid, "a timeout does not restart the server");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversize_results_are_refused_with_a_clear_error() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"big": fixture_entry(&[])}}));
    let mut config = home.config();
    config.max_message_bytes = 64 * 1024;
    config.max_result_bytes = 10_000;
    let host = McpHost::start(config).unwrap();

    // Over the message limit: refused by the transport, answered at once (no timeout).
    let out = call(&host, Profile::Execution, None, "mcp_big_big", json!({"bytes": 200_000})).await;
    assert!(out.is_error, "{out:?}");
    assert!(
        out.content.starts_with("`mcp_big_big` failed: the reply of MCP server `big` was ")
            && out.content.ends_with("bytes, over the limit of 65536 bytes for one message, and was refused; ask for less"),
        "{}",
        out.content
    );
    // Over the result limit: refused when converted.
    let out = call(&host, Profile::Execution, None, "mcp_big_big", json!({"bytes": 20_000})).await;
    assert_eq!(
        (out.is_error, out.content.as_str()),
        (true, "`mcp_big_big` returned 20000 bytes, over the limit of 10000 bytes for one tool result; \
                ask for less (a narrower path or pattern, part of a file, fewer files)")
    );
    let out = call(&host, Profile::Execution, None, "mcp_big_big", json!({"bytes": 10_000})).await;
    assert_eq!((out.is_error, out.content.len()), (false, 10_000));
    let pid = pid_of(&host, "big").await;
    let out = call(&host, Profile::Execution, None, "mcp_big_echo", json!({"text": "ok"})).await;
    assert_eq!(out.content, "ok");
    assert_eq!(pid_of(&host, "big").await, pid);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_leaves_no_process_of_any_group_alive() {
    let home = Home::new();
    home.write_mcp_json(
        &json!({"mcpServers": {"stubborn": fixture_entry(&["--helper", "--ignore-term"])}}),
    );
    let host = home.host();
    let set = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    assert!(set.unavailable.is_empty(), "{set:?}");
    let helper: u32 = call(&host, Profile::Execution, None, "mcp_stubborn_helper_pid", json!({}))
        .await
        .content
        .parse()
        .unwrap();
    let groups: Vec<u32> =
        host.running_servers().await.unwrap().iter().filter_map(|r| r.pid).collect();
    assert_eq!(groups.len(), 2, "the fixture and the filesystem server");
    assert!(group_members(pid_of(&host, "stubborn").await).contains(&helper));
    let members: Vec<u32> = groups.iter().flat_map(|g| group_members(*g)).collect();
    assert!(members.len() >= 3, "{members:?}");

    host.shutdown().await;
    for pid in members {
        expect_exit(pid, "a server or its helper").await;
    }
    for group in groups {
        assert_eq!(group_members(group), Vec::<u32>::new(), "group {group}");
    }
    let out =
        call(&host, Profile::Execution, None, "mcp_stubborn_echo", json!({"text": "x"})).await;
    assert_eq!((out.is_error, out.content.as_str()), (true, "the MCP host has stopped"));
    assert_eq!(host.tools(Profile::Execution, None).await.unwrap_err(), McpError::Stopped);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_host_dropped_with_its_runtime_leaves_no_orphans() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"helped": fixture_entry(&["--helper"])}}));
    let config = home.config();
    let ws = home.ws().to_path_buf();
    // A runtime of its own, dropped without any shutdown.
    let members = std::thread::spawn(move || {
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let host = McpHost::start(config).unwrap();
            host.tools(Profile::Execution, Some(&ws)).await.unwrap();
            let groups = host.running_servers().await.unwrap();
            groups.iter().filter_map(|r| r.pid).flat_map(group_members).collect::<Vec<u32>>()
        })
    })
    .join()
    .unwrap();
    assert!(members.len() >= 3, "{members:?}");
    for pid in members {
        expect_exit(pid, "a server or its helper").await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_malformed_mcp_json_is_a_clear_error_and_changes_nothing() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"one": fixture_entry(&[])}}));
    let host = home.host();
    let before = host.tools(Profile::Execution, None).await.unwrap();
    let pid = pid_of(&host, "one").await;

    let path = home.data.path().join("mcp.json");
    std::fs::write(&path, r#"{"mcpServers": {"one": {"command": "node",}}}"#).unwrap();
    let error = host.reload().await.unwrap_err();
    assert_eq!(
        error.to_string(),
        format!("{}: trailing comma at line 1 column 43", path.display())
    );
    assert_eq!(host.tools(Profile::Execution, None).await.unwrap(), before);
    assert_eq!(pid_of(&host, "one").await, pid);
    // And at start, nothing runs at all.
    assert_eq!(McpHost::start(home.config()).err(), Some(error));

    // A valid change stops the changed server; it starts anew with the new entry.
    home.write_mcp_json(&json!({"mcpServers": {"one": fixture_entry(&["--helper"])}}));
    host.reload().await.unwrap();
    assert!(host.running_servers().await.unwrap().is_empty());
    expect_exit(pid, "the server whose entry changed").await;
    host.tools(Profile::Execution, None).await.unwrap();
    assert_ne!(pid_of(&host, "one").await, pid);
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_that_cannot_start_say_why() {
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {
        "missing": {"command": "/nonexistent/mcp-server"},
        "crash": {"command": "node", "args": ["-e", "console.error('boom: bad token'); process.exit(3)"]},
    }}));
    let host = home.host();
    let set = host.tools(Profile::Execution, None).await.unwrap();
    let errors: Vec<String> = set.unavailable.iter().map(|u| u.error.to_string()).collect();
    assert_eq!(errors.len(), 2, "{errors:?}");
    assert_eq!(
        errors[0],
        "MCP server `missing` could not be started: `/nonexistent/mcp-server`: No such file or directory (os error 2)"
    );
    assert!(errors[1].starts_with("MCP server `crash` failed to initialize: "), "{}", errors[1]);
    assert!(
        errors[1].contains("exit status: 3") && errors[1].contains("boom: bad token"),
        "{}",
        errors[1]
    );
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_must_be_an_object_and_a_vanished_workspace_is_an_error() {
    let home = Home::new();
    let host = home.host();
    let out = call(
        &host,
        Profile::Execution,
        Some(home.ws()),
        "mcp_filesystem_list_directory",
        json!(["."]),
    )
    .await;
    assert_eq!(
        out.content,
        "the arguments of `mcp_filesystem_list_directory` must be a JSON object"
    );
    let gone = home.ws().join("gone");
    let error = host.tools(Profile::Planning, Some(Path::new(&gone))).await.unwrap_err();
    assert!(matches!(error, McpError::Workspace { .. }), "{error}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn servers_inherit_the_environment_with_the_hosts_changes_then_their_own() {
    let home = Home::new();
    let mut entry = fixture_entry(&[]);
    entry["env"] = json!({"PREFLIGHT_BOTH": "from-entry"});
    home.write_mcp_json(&json!({"mcpServers": {"fixture": entry}}));
    let mut config = home.config();
    config.inherited_env = vec![
        ("HOME".into(), None),
        ("PREFLIGHT_INHERITED".into(), Some("from-host".into())),
        ("PREFLIGHT_BOTH".into(), Some("from-host".into())),
    ];
    let host = McpHost::start(config).unwrap();
    host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    let pid = pid_of(&host, "fixture").await;
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    let vars: Vec<String> = environ
        .split(|byte| *byte == 0)
        .map(|var| String::from_utf8_lossy(var).into_owned())
        .collect();
    assert!(
        std::env::var_os("HOME").is_some(),
        "the test process has HOME, so its absence below is the change"
    );
    assert!(!vars.iter().any(|var| var.starts_with("HOME=")), "{vars:?}");
    assert!(vars.contains(&"PREFLIGHT_INHERITED=from-host".to_string()), "{vars:?}");
    assert!(
        vars.contains(&"PREFLIGHT_BOTH=from-entry".to_string()),
        "the server's own env comes last: {vars:?}"
    );
    assert!(vars.iter().any(|var| var.starts_with("PATH=")), "the rest is inherited: {vars:?}");
    host.shutdown().await;
}
