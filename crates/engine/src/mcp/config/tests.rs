//! `mcp.json` parsing and the entries the host supplies (filesystem, code sandbox).

use super::*;

fn config() -> McpConfig {
    McpConfig::new("/home/u/.local/share/preflight", "/opt/p/server-filesystem/dist/index.js")
}

fn parse(text: &str) -> Result<Vec<ServerEntry>, String> {
    parse_servers(Path::new("/h/mcp.json"), text, &config()).map_err(|e| e.to_string())
}

#[test]
fn without_servers_the_default_filesystem_entry_is_supplied() {
    for text in ["{}", r#"{"mcpServers":{}}"#] {
        let servers = parse(text).unwrap();
        assert_eq!(servers, vec![default_filesystem(&config())]);
    }
    let fs = &default_filesystem(&config());
    assert_eq!(fs.command, "node");
    assert_eq!(fs.args, ["/opt/p/server-filesystem/dist/index.js", "${workspace}"]);
    assert_eq!(fs.class, ServerClass::Filesystem);
}

#[test]
fn entries_keep_file_order_and_a_user_filesystem_entry_replaces_the_default() {
    let text = r#"{"mcpServers":{
        "docs": {"command":"npx","args":["-y","@upstash/context7-mcp"],"env":{"B":"1","A":"2"}},
        "filesystem": {"type":"stdio","command":"npx","args":["-y","@modelcontextprotocol/server-filesystem","${workspace}"]}
    }}"#;
    let servers = parse(text).unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["docs", "filesystem"]);
    assert_eq!(servers[0].class, ServerClass::Context7);
    assert_eq!(
        servers[0].env,
        [("B".to_string(), "1".to_string()), ("A".to_string(), "2".to_string())]
    );
    assert_eq!(servers[1].command, "npx");
    // Another name running the filesystem server also replaces the default.
    let text = r#"{"mcpServers":{"files":{"command":"node","args":["/x/@modelcontextprotocol/server-filesystem/dist/index.js","${workspace}"]}}}"#;
    assert_eq!(parse(text).unwrap().len(), 1);
}

#[test]
fn bad_files_are_clear_errors_naming_the_file() {
    let table = [
        ("", "/h/mcp.json: is empty; write {\"mcpServers\": {}} or remove the file"),
        ("{", "/h/mcp.json: EOF while parsing an object at line 1 column 1"),
        (r#"{"mcpServers":[]}"#, "/h/mcp.json: invalid type: sequence, expected an object at line 1 column 14"),
        (r#"{"servers":{}}"#, "/h/mcp.json: unknown field `servers`, expected `mcpServers` at line 1 column 10"),
        (r#"{"mcpServers":{"a":{"command":"x","cwd":"/"}}}"#,
         "/h/mcp.json: unknown field `cwd`, expected one of `command`, `args`, `env`, `type`, `readWhilePlanning`, `url` at line 1 column 39"),
        (r#"{"mcpServers":{"a":{"args":["x"]}}}"#, "/h/mcp.json: server `a`: `command` is missing or empty"),
        (r#"{"mcpServers":{"a":{"command":" "}}}"#, "/h/mcp.json: server `a`: `command` is missing or empty"),
        (r#"{"mcpServers":{"a":{"url":"http://x"}}}"#,
         "/h/mcp.json: server `a`: only stdio servers (`command`, `args`, `env`) are supported, not HTTP ones"),
        (r#"{"mcpServers":{"a":{"type":"sse","command":"x"}}}"#,
         "/h/mcp.json: server `a`: only stdio servers (`command`, `args`, `env`) are supported, not HTTP ones"),
        (r#"{"mcpServers":{"a":{"command":"x","args":"y"}}}"#,
         "/h/mcp.json: invalid type: string \"y\", expected a sequence at line 1 column 44"),
        (r#"{"mcpServers":{"a":{"command":"x","env":{"K":1}}}}"#,
         "/h/mcp.json: invalid type: integer `1`, expected a string at line 1 column 46"),
        (r#"{"mcpServers":{"a":{"command":"x"},"a":{"command":"y"}}}"#,
         "/h/mcp.json: `a` is given twice at line 1 column 38"),
        (r#"{"mcpServers":{"":{"command":"x"}}}"#, "/h/mcp.json: a server has an empty name"),
    ];
    let mismatches: Vec<String> = table
        .iter()
        .filter_map(|(text, want)| {
            let got = parse(text).unwrap_err();
            (got != *want).then(|| format!("{text}\n  got:  {got}\n  want: {want}"))
        })
        .collect();
    assert!(mismatches.is_empty(), "{}", mismatches.join("\n"));
}

#[test]
fn workspace_is_substituted_in_args_and_required_by_servers_that_use_it() {
    let entry = ServerEntry {
        name: "git".into(),
        command: "uvx".into(),
        args: vec![
            "mcp-server-git".into(),
            "--repository=${workspace}".into(),
            "${workspace}".into(),
        ],
        env: vec![("K".into(), "${workspace}".into())],
        class: ServerClass::Other,
        missing: None,
        read_while_planning: false,
    };
    assert!(entry.uses_workspace());
    assert_eq!(entry.launch(None), None);
    let launch = entry.launch(Some(Path::new("/w/my project"))).unwrap();
    assert_eq!(launch.args, ["mcp-server-git", "--repository=/w/my project", "/w/my project"]);
    assert_eq!(launch.env, entry.env, "only args are substituted");
    assert_eq!(launch.workspace.as_deref(), Some(Path::new("/w/my project")));
    let global = ServerEntry { args: vec!["-y".into()], ..entry };
    assert!(!global.uses_workspace());
    let launch = global.launch(None).unwrap();
    assert_eq!(launch.workspace, None);
    assert_eq!(global.launch(Some(Path::new("/w"))), Some(launch));
}

#[test]
fn the_sandbox_entry_is_supplied_unless_one_is_configured() {
    let bin = tempfile::tempdir().unwrap();
    let program = bin.path().join("preflight-sandbox");
    std::fs::write(&program, "").unwrap();
    let mut config = config();
    let sandbox = SandboxDefault {
        program: program.clone(),
        network: false,
        env: vec![("PIP_NO_INDEX".into(), "1".into())],
    };
    config.sandbox = Some(sandbox.clone());
    let servers = parse_servers(Path::new("/h/mcp.json"), "{}", &config).unwrap();
    let entry = servers.iter().find(|s| s.name == CODE_SANDBOX).expect("code-sandbox");
    assert_eq!(entry.args, ["--workspace", "${workspace}", "--no-network"]);
    assert_eq!((entry.class, entry.missing.clone()), (ServerClass::CodeSandbox, None));
    assert_eq!(entry.env, sandbox.env);
    assert!(entry.uses_workspace(), "one per workspace, none without one");
    let online = default_sandbox(&SandboxDefault { network: true, ..sandbox.clone() });
    assert_eq!(online.args, ["--workspace", "${workspace}"]);
    let absent = default_sandbox(&SandboxDefault { program: bin.path().join("no"), ..sandbox });
    assert!(absent
        .unusable()
        .unwrap()
        .to_string()
        .contains("code sandbox server is not installed"));
    let own = r#"{"mcpServers":{"code-sandbox":{"command":"/opt/box","args":["${workspace}"]}}}"#;
    let servers = parse_servers(Path::new("/h/mcp.json"), own, &config).unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["code-sandbox", "filesystem"], "the user's entry replaces ours");
    config.sandbox = None;
    let servers = parse_servers(Path::new("/h/mcp.json"), "{}", &config).unwrap();
    assert_eq!(servers.len(), 1, "no sandbox when it is turned off");
}

#[test]
fn a_missing_file_means_defaults_and_an_unreadable_one_is_an_error() {
    let home = tempfile::tempdir().unwrap();
    let config = McpConfig::new(home.path(), "/fs.js");
    assert_eq!(load_servers(&config).unwrap(), vec![default_filesystem(&config)]);
    std::fs::create_dir(config.mcp_json()).unwrap();
    let error = load_servers(&config).unwrap_err().to_string();
    assert!(
        error.starts_with(&format!("{}: cannot be read: ", config.mcp_json().display())),
        "{error}"
    );
}
