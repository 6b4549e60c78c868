//! Running unconfined is the user's choice before approval (DESIGN §11), never a fallback:
//! where bubblewrap cannot build namespaces (Ubuntu 24.04's AppArmor rule, containers) the
//! plan card says so, approval needs `{"unconfined": true}`, auto-approve holds the plan,
//! and a chat approved without that choice has its sandbox calls and gates refused.
//!
//! A `bwrap` that fails the way a machine without user namespaces does stands in for such a
//! machine: it comes first on the PATH of `preflight serve`, so the sandbox's probe finds it.
//!
//! Issue 46: the engine's belief is not the only guard. A sandbox whose own probe fails where
//! Preflight's worked refuses to start rather than fall back (a `bwrap` that works once), a
//! code sandbox that says it runs unconfined (a real `preflight-sandbox --confinement none`)
//! is not used without the user's choice, and the sandbox view starts none for such a chat.

mod support;

use std::os::unix::fs::PermissionsExt;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, EventStream, Serve};
use tempfile::TempDir;

/// A folder holding a `bwrap` that cannot make namespaces, and the PATH with it first.
fn machine_without_namespaces() -> (TempDir, String) {
    let bin = tempfile::tempdir().unwrap();
    let fake = bin.path().join("bwrap");
    let words = "bwrap: setting up uid map: Permission denied";
    std::fs::write(&fake, format!("#!/bin/sh\necho '{words}' >&2\nexit 1\n")).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    (bin, path)
}

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// The tool results the executor was sent, in order.
fn tool_results(provider: &ScriptedServer) -> Vec<String> {
    let Some(last) = provider.requests().into_iter().last() else { return Vec::new() };
    let messages = last.body["messages"].as_array().cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn serve_with(provider: &ScriptedServer, extra_config: &str, path: &str) -> Serve {
    let home = tempfile::tempdir().unwrap();
    let config = format!("{}\n{extra_config}", openai_config(&provider.openai_url()));
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    Serve::start_with_env(home, &[("PATH", path)])
}

/// The planner's one-step plan, then `executor`'s replies.
fn say_hello(executor: Vec<Reply>) -> Script {
    Script::new().route(planner(), [plan("Say hello", &["Print hello"])]).route(anyone(), executor)
}

/// A chat on a fresh workspace (with `settings` besides), its first message sent and its plan
/// card waiting; the workspace lives as long as the returned guard.
async fn waiting_plan(serve: &Serve, settings: Value) -> (TempDir, String, EventStream) {
    let workspace = tempfile::tempdir().unwrap();
    let mut body = json!({"workspace": workspace.path(), "save_plans": false});
    body.as_object_mut().unwrap().extend(settings.as_object().cloned().unwrap_or_default());
    let id = serve.create_chat(body).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Say hello"})).await;
    events.wait_for_phase("awaiting_approval").await;
    (workspace, id, events)
}

#[tokio::test(flavor = "multi_thread")]
async fn approval_needs_the_users_explicit_choice_and_a_refusal_changes_nothing() {
    let (_bin, path) = machine_without_namespaces();
    let script = say_hello(vec![
        call("mcp_code-sandbox_run_command", json!({"command": "echo hello-from-the-run"})),
        Reply::text("Printed."),
    ]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "", &path).await;
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({})).await;

    let view = serve.chat(&id).await;
    let notice = &view["state"]["unconfined"];
    assert_eq!(notice["needs_consent"], true, "{view}");
    assert!(notice["reason"].as_str().unwrap().contains("uid map"), "bubblewrap's words: {view}");

    let approve = format!("/v1/chats/{id}/plan/approve");
    for body in [json!(null), json!({}), json!({"unconfined": false})] {
        let (status, answer) = serve.post(&approve, body.clone()).await;
        let error = &answer["error"];
        assert_eq!(
            (status, error["code"].as_str()),
            (409, Some("ERR_UNCONFINED")),
            "{body}: {error}"
        );
        assert!(error["message"].as_str().unwrap().contains("uid map"), "says why: {error}");
    }
    let (status, error) = serve.post(&approve, json!({"unconfined": "yes"})).await;
    assert_eq!(
        (status, error["error"]["code"].as_str()),
        (400, Some("ERR_BAD_REQUEST")),
        "{error}"
    );
    let after = serve.chat(&id).await;
    assert_eq!(after["state"]["phase"], "awaiting_approval", "nothing changed: {after}");
    assert_eq!(after["state"]["plan"]["approval"], "pending", "{after}");

    let (status, approved) = serve.post(&approve, json!({"unconfined": true})).await;
    assert_eq!(status, 202, "{approved}");
    events.wait_for_phase("idle").await;
    let done = serve.chat(&id).await;
    assert_eq!(done["state"]["plan"]["run_unconfined"], true, "{done}");
    let results = tool_results(&provider);
    let run = results.iter().find(|r| r.contains("hello-from-the-run")).expect("the run's output");
    assert!(run.contains("UNCONFINED"), "the run says it was not confined: {run}");
}

#[tokio::test(flavor = "multi_thread")]
async fn auto_approve_holds_a_plan_that_would_run_unconfined() {
    let (_bin, path) = machine_without_namespaces();
    let provider = ScriptedServer::start(say_hello(vec![Reply::text("Printed.")])).await.unwrap();
    let serve = serve_with(&provider, "", &path).await;
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({"auto_approve": true})).await;
    let view = serve.chat(&id).await;
    assert_eq!(view["state"]["plan"]["approval"], "pending", "held for the user: {view}");
    assert_eq!(view["state"]["unconfined"]["needs_consent"], true, "{view}");
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/approve"), json!({"unconfined": true})).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn confinement_off_in_the_configuration_is_the_users_choice_already() {
    let (_bin, path) = machine_without_namespaces();
    let provider = ScriptedServer::start(say_hello(vec![Reply::text("Printed.")])).await.unwrap();
    let serve = serve_with(&provider, "[sandbox]\nconfinement = \"off\"\n", &path).await;
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({})).await;
    let view = serve.chat(&id).await;
    assert_eq!(view["state"]["unconfined"]["needs_consent"], false, "{view}");
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_chat_approved_while_confined_gets_no_unconfined_run_later() {
    let (_bin, path) = machine_without_namespaces();
    let script = say_hello(vec![
        Reply::text("Ready."),
        call("mcp_code-sandbox_run_command", json!({"command": "echo should-not-run"})),
        call("turn_plan", json!({"op": "done", "id": 1, "gate": {"command": "true"}})),
        Reply::text("Stopped."),
    ]);
    let provider = ScriptedServer::start(script).await.unwrap();
    // Approved where bubblewrap works: no choice was asked for, none recorded.
    let serve = serve_with(&provider, "", &std::env::var("PATH").unwrap_or_default()).await;
    let workspace = tempfile::tempdir().unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    serve.plan_approve_and_run(&id, "Say hello").await;
    let home = serve.stop();
    // The same data folder on a machine that cannot confine: the next turn may not run code.
    let serve = Serve::start_with_env(home, &[("PATH", &path)]);
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go on"})).await;
    events.wait_for_phase("idle").await;
    let results = tool_results(&provider);
    assert!(!results.iter().any(|r| r.contains("should-not-run")), "{results:#?}");
    let refusals = results.iter().filter(|r| r.contains("not allowed to run unconfined")).count();
    assert_eq!(refusals, 2, "the command and the gate are both refused: {results:#?}");
}

/// A `bwrap` that confines the first call (Preflight's own probe at start) and fails every
/// later one the way a machine without user namespaces does (the sandbox server's probe):
/// issue 46's reproduction of a server that fell back to unconfined, consent never asked.
fn bubblewrap_that_works_once() -> (TempDir, String) {
    let real = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())
        .map(|dir| dir.join("bwrap"))
        .find(|bwrap| bwrap.is_file())
        .expect("bubblewrap is installed");
    let bin = tempfile::tempdir().unwrap();
    let first = bin.path().join("first-call");
    let script = format!(
        "#!/bin/sh\nif mkdir '{}' 2>/dev/null; then exec '{}' \"$@\"; fi\n\
         echo 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n",
        first.display(),
        real.display()
    );
    let fake = bin.path().join("bwrap");
    std::fs::write(&fake, script).unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    (bin, path)
}

/// A command that leaves `marker` behind (a host path, outside the workspace) if it runs
/// with the host's files in reach.
fn escape(marker: &std::path::Path) -> Value {
    json!({"command": format!("echo escaped > '{}'", marker.display())})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandbox_whose_own_probe_fails_refuses_to_start_rather_than_run_unconfined() {
    let (_bin, path) = bubblewrap_that_works_once();
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("escaped");
    let script = say_hello(vec![
        call("mcp_code-sandbox_run_command", escape(&marker)),
        call("turn_plan", json!({"op": "done", "id": 1, "gate": {"command": "true"}})),
        Reply::text("Stopped."),
    ]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = serve_with(&provider, "", &path).await;
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({})).await;
    let view = serve.chat(&id).await;
    assert_eq!(view["state"]["unconfined"], Value::Null, "Preflight's probe confined: {view}");

    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
    assert!(!marker.exists(), "nothing ran unconfined");
    let chat = serve.chat(&id).await;
    let results: Vec<&str> = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(results.len(), 2, "{chat}");
    assert!(results[0].contains("is not available"), "the command is not offered: {}", results[0]);
    let gate = results[1];
    for words in ["did not start", "refuses to run commands unconfined", "restart Preflight"] {
        assert!(gate.contains(words), "`{words}` in {gate}");
    }
    assert!(gate.contains("confinement = \"off\""), "{gate}");
}

/// `mcp.json`'s code sandbox, a real `preflight-sandbox` started with `--confinement none`:
/// what a server that downgraded itself looks like to the engine.
fn downgraded_sandbox(home: &std::path::Path) {
    let program =
        std::path::Path::new(env!("CARGO_BIN_EXE_preflight")).with_file_name("preflight-sandbox");
    assert!(program.is_file(), "build it first: cargo build -p preflight-sandbox");
    let state = home.join("sandbox");
    let args = ["--workspace", "${workspace}", "--state-dir", state.to_str().unwrap()];
    let mut args: Vec<&str> = args.to_vec();
    args.extend(["--confinement", "none"]);
    let entry = json!({"command": program, "args": args});
    let mcp = json!({"mcpServers": {"code-sandbox": entry}});
    std::fs::write(home.join("mcp.json"), mcp.to_string()).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_sandbox_that_says_it_runs_unconfined_is_not_used_without_the_users_choice() {
    let outside = tempfile::tempdir().unwrap();
    let marker = outside.path().join("escaped");
    let script = say_hello(vec![
        call("mcp_code-sandbox_run_command", escape(&marker)),
        call("turn_plan", json!({"op": "done", "id": 1, "gate": {"command": "true"}})),
        Reply::text("Stopped."),
    ]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    let config = openai_config(&provider.openai_url());
    std::fs::write(home.path().join("config.toml"), config).unwrap();
    downgraded_sandbox(home.path());
    let serve = Serve::start_in(home);
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({})).await;
    assert_eq!(serve.chat(&id).await["state"]["unconfined"], Value::Null, "bubblewrap works");
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;

    assert!(!marker.exists(), "nothing ran unconfined");
    let results = tool_results(&provider);
    let refused = results.iter().filter(|r| r.contains("would not confine this run")).count();
    assert_eq!(refused, 2, "the command and the gate are refused: {results:#?}");
    let (_, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!(sandbox["available"], false, "{sandbox}");
    assert!(sandbox["text"].as_str().unwrap().contains("would not confine"), "{sandbox}");
}

/// The `preflight-sandbox` processes `pid` started (read from /proc).
fn sandboxes_started_by(pid: u32) -> usize {
    let children = std::fs::read_dir("/proc").unwrap().filter_map(|entry| {
        let stat = std::fs::read_to_string(entry.ok()?.path().join("stat")).ok()?;
        let (comm, rest) = stat.split_once(" (")?.1.rsplit_once(") ")?;
        let parent: u32 = rest.split(' ').nth(1)?.parse().ok()?;
        (parent == pid && comm.starts_with("preflight-sand")).then_some(())
    });
    children.count()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_sandbox_view_of_a_chat_without_the_users_choice_starts_no_sandbox() {
    let (_bin, path) = machine_without_namespaces();
    let provider = ScriptedServer::start(say_hello(vec![Reply::text("Done.")])).await.unwrap();
    let serve = serve_with(&provider, "", &path).await;
    let (_workspace, id, mut events) = waiting_plan(&serve, json!({})).await;

    let (status, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!((status, sandbox["available"].clone()), (200, json!(false)), "{sandbox}");
    let text = sandbox["text"].as_str().unwrap();
    for words in ["was not started", "uid map", "Run unconfined", "confinement = \"off\""] {
        assert!(text.contains(words), "`{words}` in {text}");
    }
    assert_eq!(sandboxes_started_by(serve.pid()), 0, "no sandbox was started for it");

    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/approve"), json!({"unconfined": true})).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
    let (_, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!(
        (sandbox["available"].clone(), sandbox["confined"].clone()),
        (json!(true), json!(false))
    );
}
