//! MCP servers get a short allowlist of this process's environment, never all of it: a
//! provider key or any other secret of the engine's environment stays in the engine (issue
//! 14, finding #4). One test in its own binary, because it sets variables of the process.

mod support;

use preflight_mcp::{McpHost, Profile};
use serde_json::json;
use support::mcp::{fixture_entry, pid_of, Home};

/// The environment of process `pid`, as `NAME=value` strings.
fn environment_of(pid: u32) -> Vec<String> {
    let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap();
    environ
        .split(|byte| *byte == 0)
        .filter(|var| !var.is_empty())
        .map(|var| String::from_utf8_lossy(var).into_owned())
        .collect()
}

#[test]
fn servers_see_an_allowlist_the_hosts_changes_and_their_own_env_only() {
    // Set before any thread of the runtime exists.
    std::env::set_var("OPENAI_API_KEY", "sk-test-should-stay-home");
    std::env::set_var("PREFLIGHT_TEST_SECRET", "hunter2");
    let mut runtime = tokio::runtime::Builder::new_multi_thread();
    runtime.worker_threads(2).enable_all();
    runtime.build().unwrap().block_on(async {
        let home = Home::new();
        let mut entry = fixture_entry(&[]);
        entry["env"] = json!({"PREFLIGHT_OWN": "from-entry", "PREFLIGHT_BOTH": "from-entry"});
        home.write_mcp_json(&json!({"mcpServers": {"fixture": entry}}));
        let mut config = home.config();
        config.inherited_env = vec![
            ("LD_LIBRARY_PATH".into(), Some("/opt/private-libs".into())),
            ("PREFLIGHT_BOTH".into(), Some("from-host".into())),
            ("TERM".into(), None),
        ];
        let host = McpHost::start(config).unwrap();
        host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
        let vars = environment_of(pid_of(&host, "fixture").await);
        host.shutdown().await;

        for secret in ["OPENAI_API_KEY=", "PREFLIGHT_TEST_SECRET="] {
            assert!(!vars.iter().any(|v| v.starts_with(secret)), "{secret} leaked: {vars:?}");
        }
        let names: Vec<&str> = vars.iter().filter_map(|v| v.split('=').next()).collect();
        let allowed = ["HOME", "LOGNAME", "PATH", "SHELL", "USER", "LANG", "LC_ALL", "TMPDIR"];
        let extra = ["LD_LIBRARY_PATH", "PREFLIGHT_BOTH", "PREFLIGHT_OWN"];
        let unexpected: Vec<&&str> =
            names.iter().filter(|n| !allowed.contains(n) && !extra.contains(n)).collect();
        assert!(unexpected.is_empty(), "only the allowlist and the changes: {unexpected:?}");
        assert!(vars.iter().any(|v| v.starts_with("PATH=")), "{vars:?}");
        assert!(vars.contains(&"LD_LIBRARY_PATH=/opt/private-libs".to_string()), "{vars:?}");
        assert!(vars.contains(&"PREFLIGHT_OWN=from-entry".to_string()), "{vars:?}");
        assert!(vars.contains(&"PREFLIGHT_BOTH=from-entry".to_string()), "own env last: {vars:?}");
        assert!(!names.contains(&"TERM"), "the host's removal holds: {vars:?}");
    });
}
