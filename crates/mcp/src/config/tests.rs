//! `mcp.json` parsing and the entries the host supplies (filesystem, code sandbox).

use std::path::Path;

use super::*;
use crate::classify::ServerClass;
use crate::confinement::ConfinementMode;

/// What an embedder supplies, as `McpOptions::new` does: `node` from `PATH`, no sandbox.
fn supplied<'a>(data_dir: &'a str, filesystem_server: &'a str) -> Supplied<'a> {
    Supplied {
        data_dir: Path::new(data_dir),
        filesystem_server: Path::new(filesystem_server),
        node: Path::new("node"),
        sandbox: None,
    }
}

fn config() -> Supplied<'static> {
    supplied("/home/u/.local/share/preflight", "/opt/p/server-filesystem/dist/index.js")
}

fn parse(text: &str) -> Result<Vec<ServerEntry>, String> {
    parse_servers(Path::new("/h/mcp.json"), text, config()).map_err(|e| e.to_string())
}

#[test]
fn without_servers_the_default_filesystem_entry_is_supplied() {
    for text in ["{}", r#"{"mcpServers":{}}"#] {
        let servers = parse(text).unwrap();
        assert_eq!(servers, vec![default_filesystem(config())]);
    }
    let fs = &default_filesystem(config());
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
         "/h/mcp.json: unknown field `cwd`, expected one of `command`, `args`, `env`, `type`, `readWhilePlanning`, `url`, `headers`, `oauth` at line 1 column 39"),
        (r#"{"mcpServers":{"a":{"args":["x"]}}}"#, "/h/mcp.json: server `a`: `command` (or `url`) is missing or empty"),
        (r#"{"mcpServers":{"a":{"command":" "}}}"#, "/h/mcp.json: server `a`: `command` (or `url`) is missing or empty"),
        (r#"{"mcpServers":{"a":{"url":"ftp://x"}}}"#,
         "/h/mcp.json: server `a`: `url` must start with https:// or http://, not `ftp:`"),
        (r#"{"mcpServers":{"a":{"url":"https://me:pw@x/mcp"}}}"#,
         "/h/mcp.json: server `a`: `url` must not hold a user name or password; put a token in `headers`"),
        (r#"{"mcpServers":{"a":{"type":"sse","command":"x"}}}"#,
         "/h/mcp.json: server `a`: a `url` server has no `command`, `args` or `env`"),
        (r#"{"mcpServers":{"a":{"type":"websocket","url":"https://x"}}}"#,
         "/h/mcp.json: server `a`: `type` is `websocket`; use `stdio`, `http` (Streamable HTTP) or `sse`"),
        (r#"{"mcpServers":{"a":{"url":"https://x","headers":{"Bad Name":"v"}}}}"#,
         "/h/mcp.json: server `a`: header `Bad Name` is not a valid HTTP header name"),
        (r#"{"mcpServers":{"a":{"url":"https://x","headers":{"A":"${env:TOKEN"}}}}"#,
         "/h/mcp.json: server `a`: an `${env:` is not closed with `}`"),
        (r#"{"mcpServers":{"a":{"command":"x","headers":{"A":"b"}}}}"#,
         "/h/mcp.json: server `a`: `headers` and `oauth` are for `url` servers"),
        (r#"{"mcpServers":{"a":{"url":"https://x","oauth":{"clientSecret":"s"}}}}"#,
         "/h/mcp.json: server `a`: `oauth.clientSecret` needs `oauth.clientId`"),
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
        remote: None,
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
    let sandbox = SandboxDefault {
        program: program.clone(),
        network: false,
        max_file_mib: None,
        confinement: Default::default(),
        allow_sdists: false,
        env: vec![("PIP_NO_INDEX".into(), "1".into())],
    };
    let h = Path::new("/h");
    let supplied_sandbox = sandbox.clone();
    let mut config = Supplied { data_dir: h, sandbox: Some(&supplied_sandbox), ..config() };
    let servers = parse_servers(Path::new("/h/mcp.json"), "{}", config).unwrap();
    let entry = servers.iter().find(|s| s.name == CODE_SANDBOX).expect("code-sandbox");
    assert_eq!(entry.args, ["--workspace", "${workspace}", "--state-dir", "/h/sandbox"]);
    assert_eq!((entry.class, entry.missing.clone()), (ServerClass::CodeSandbox, None));
    assert_eq!(entry.env, sandbox.env);
    assert!(entry.uses_workspace(), "one per workspace, none without one");
    let online = SandboxDefault { network: true, max_file_mib: Some(64), ..sandbox.clone() };
    assert_eq!(
        default_sandbox(&online, h).args,
        [
            "--workspace",
            "${workspace}",
            "--state-dir",
            "/h/sandbox",
            "--network",
            "--max-file-mib",
            "64"
        ]
    );
    let off = SandboxDefault { confinement: ConfinementMode::Off, ..sandbox.clone() };
    assert_eq!(default_sandbox(&off, h).args[4..], ["--confinement", "none"]);
    let sdists = SandboxDefault { allow_sdists: true, ..sandbox.clone() };
    assert_eq!(default_sandbox(&sdists, h).args[4..], ["--allow-sdists"], "wheels only unless");
    let absent = default_sandbox(&SandboxDefault { program: bin.path().join("no"), ..sandbox }, h);
    assert!(absent
        .unusable()
        .unwrap()
        .to_string()
        .contains("code sandbox server is not installed"));
    let own = r#"{"mcpServers":{"code-sandbox":{"command":"/opt/box","args":["${workspace}"]}}}"#;
    let servers = parse_servers(Path::new("/h/mcp.json"), own, config).unwrap();
    let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["code-sandbox", "filesystem"], "the user's entry replaces ours");
    config.sandbox = None;
    let servers = parse_servers(Path::new("/h/mcp.json"), "{}", config).unwrap();
    assert_eq!(servers.len(), 1, "no sandbox when it is turned off");
}

#[test]
fn a_remote_entry_keeps_its_url_headers_and_client_and_fills_env_only_when_started() {
    let text = r#"{"mcpServers":{"tracker":{"type":"http","url":"https://mcp.example.com/mcp",
        "headers":{"Authorization":"Bearer ${env:TRACKER_TOKEN}","X-Team":"core"},
        "oauth":{"clientId":"preflight-desktop","clientSecret":"${env:TRACKER_SECRET}","scopes":["read"]}}}}"#;
    let servers =
        parse_servers(Path::new("/h/mcp.json"), text, supplied("/h", "/fs/index.js")).unwrap();
    let remote = servers[0].remote.clone().expect("a remote entry");
    assert_eq!(remote.url, "https://mcp.example.com/mcp");
    assert_eq!(remote.kind, RemoteKind::StreamableHttp);
    assert_eq!(remote.scopes, ["read"]);
    assert_eq!(servers[0].class, ServerClass::Other);
    let env = |name: &str| (name == "TRACKER_TOKEN").then(|| "t0k3n".to_owned());
    let headers = remote.resolved_headers(&env).unwrap();
    assert_eq!(headers[0], ("Authorization".to_owned(), "Bearer t0k3n".to_owned()));
    assert_eq!(headers[1], ("X-Team".to_owned(), "core".to_owned()));
    assert_eq!(
        remote.resolved_secret(&env).unwrap_err(),
        "`clientSecret` uses ${env:TRACKER_SECRET}, which is not set"
    );
    let nothing = |_: &str| None;
    assert_eq!(
        remote.resolved_headers(&nothing).unwrap_err(),
        "header `Authorization` uses ${env:TRACKER_TOKEN}, which is not set"
    );
}
