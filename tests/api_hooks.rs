//! The user's hooks through the API (DESIGN §17), with real processes as hooks (shell
//! scripts the tests write) around a scripted provider and the real filesystem server: a
//! `PreToolUse` hook blocks `write_file` with its reason reaching the model, one that sleeps
//! past its timeout is killed and the turn goes on, none sees a provider key; a workspace's
//! hooks run only once the user trusts the folder; a `UserPromptSubmit` block stores nothing.

mod support;

use std::path::{Path, PathBuf};

use preflight_testkit::{Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, done, plan, planner, tool};
use support::{anthropic_config, openai_config, Serve, ANTHROPIC_KEY_ENV};

const READ: &str = "mcp_filesystem_read_text_file";
const WRITE: &str = "mcp_filesystem_write_file";

/// Writes an executable script `name` into `dir`; its path.
fn script(dir: &Path, name: &str, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path.display().to_string()
}

/// `{"hooks":{EVENT:[{"matcher":…,"hooks":[{"type":"command","command":…,"timeout":…}]}]}}`
/// from `(event, matcher, command, timeout)` entries.
fn hooks_json(entries: &[(&str, &str, &str, u64)]) -> String {
    let mut hooks = serde_json::Map::new();
    for (event, matcher, command, timeout) in entries {
        let group = json!({"matcher": matcher, "hooks": [{"type": "command", "command": command, "timeout": timeout}]});
        let list = hooks.entry(event.to_string()).or_insert_with(|| json!([]));
        list.as_array_mut().unwrap().push(group);
    }
    json!({ "hooks": hooks }).to_string()
}

/// Whether process `pid` still runs (a zombie does not).
fn alive(pid: &str) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid.trim())).unwrap_or_default();
    let state = stat.rsplit_once(") ").map(|(_, rest)| rest.chars().next());
    !stat.is_empty() && state != Some(Some('Z'))
}

/// Sends `content` to a chat and waits for its turn to end.
async fn run_turn(serve: &Serve, id: &str, content: &str) {
    let mut events = serve.events(id).await;
    let (status, body) =
        serve.post(&format!("/v1/chats/{id}/messages"), json!({ "content": content })).await;
    assert_eq!(status, 202, "{body}");
    events.wait_for_phase("idle").await;
}

/// The user's `hooks.json` of the first test, its scripts in `bin` writing there: one blocks
/// `write_file` (and keeps its stdin), one sleeps past its 1 s timeout at `read_text_file`
/// (with a child), one at every call writes its environment and prints garbage.
fn policy_hooks(bin: &Path) -> String {
    let out = |name: &str| bin.join(name).display().to_string();
    let stdin = out("stdin.json");
    let block = format!("cat > {stdin}\necho 'no writes here: policy 7' >&2\nexit 2");
    let late = format!("sleep 30 & echo $! > {}\nwait", out("late.pid"));
    let env = format!("env > {}\necho 'not json {{'\nexit 1", out("env.txt"));
    hooks_json(&[
        ("PreToolUse", WRITE, &script(bin, "block.sh", &block), 10),
        ("PreToolUse", READ, &script(bin, "late.sh", &late), 1),
        ("PreToolUse", "", &script(bin, "env.sh", &env), 10),
    ])
}

#[tokio::test]
async fn a_pre_tool_use_hook_blocks_a_write_and_a_late_one_is_killed_while_the_turn_goes_on() {
    let (workspace, bin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(workspace.path().join("notes.txt"), "the word is marmalade\n").unwrap();
    let file = |name: &str| workspace.path().join(name).display().to_string();
    let script = Script::new().route(
        anyone(),
        [
            tool(READ, json!({"path": file("notes.txt")})),
            tool(WRITE, json!({"path": file("new.txt"), "content": "written"})),
            Reply::text("done"),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start_with_config(&anthropic_config(&provider.url()), &[ANTHROPIC_KEY_ENV]);
    std::fs::write(serve.home_path().join("hooks.json"), policy_hooks(bin.path())).unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path(), "plan_mode": false})).await;
    run_turn(&serve, &id, "Read the notes, then write new.txt").await;

    let requests = provider.requests();
    assert_eq!(requests.len(), 3, "the turn went on past the late hook and the block");
    let body = |n: usize| requests[n].body.to_string();
    assert!(body(1).contains("marmalade"), "the read ran after the late hook was killed");
    let read = |name: &str| std::fs::read_to_string(bin.path().join(name)).unwrap();
    assert!(!alive(&read("late.pid")), "the late hook's child was killed with its group");
    assert!(body(2).contains("no writes here: policy 7"), "the model reads the hook's reason");
    assert!(!workspace.path().join("new.txt").exists(), "the blocked write did not happen");
    let input: Value = serde_json::from_str(&read("stdin.json")).unwrap();
    let said = |key: &str| input[key].as_str().map(str::to_owned);
    assert_eq!(said("hook_event_name").as_deref(), Some("PreToolUse"));
    assert_eq!((said("tool_name").as_deref(), said("chat_id")), (Some(WRITE), Some(id)));
    assert_eq!(input["tool_input"]["content"], "written", "{input}");
    let env = read("env.txt");
    assert!(env.contains("PATH="), "{env}");
    let (name, key) = ANTHROPIC_KEY_ENV;
    assert!(!env.contains(key) && !env.contains(name), "no provider key: {env}");
}

#[tokio::test]
async fn a_workspace_hooks_file_runs_only_once_the_user_trusts_the_folder() {
    let (workspace, bin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    std::fs::write(workspace.path().join("notes.txt"), "hello\n").unwrap();
    let log = bin.path().join("ran.log");
    let hook = script(bin.path(), "mark.sh", &format!("echo ran >> {}", log.display()));
    std::fs::create_dir(workspace.path().join(".preflight")).unwrap();
    let file = workspace.path().join(".preflight/hooks.json");
    std::fs::write(&file, hooks_json(&[("PreToolUse", "", &hook, 10)])).unwrap();
    let read = tool(READ, json!({"path": workspace.path().join("notes.txt")}));
    let script =
        Script::new().route(anyone(), [read.clone(), Reply::text("ok"), read, Reply::text("ok")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path(), "plan_mode": false})).await;

    run_turn(&serve, &id, "Read the notes").await;
    assert!(!log.exists(), "an untrusted workspace's hooks never run");
    let (_, view) = serve.get("/v1/hooks").await;
    let canonical: PathBuf = workspace.path().canonicalize().unwrap();
    let listed = &view["workspaces"][0];
    assert_eq!(
        (listed["workspace"].as_str(), listed["present"].as_bool(), listed["trusted"].as_bool()),
        (canonical.to_str(), Some(true), Some(false)),
        "{view}"
    );
    assert_eq!(view["loaded"], json!([]), "{view}");

    let trust = json!({"workspace": workspace.path(), "trusted": true});
    let (status, view) = serve.request("PUT", "/v1/hooks/trust", Some(trust)).await;
    assert_eq!(status, 200, "{view}");
    assert_eq!(view["workspaces"][0]["trusted"], true, "{view}");
    assert_eq!(view["loaded"][0]["command"], hook.as_str(), "{view}");
    run_turn(&serve, &id, "Read them again").await;
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "ran\n",
        "trusted, its hook ran once, at the one call"
    );
    let gone = json!({"workspace": bin.path().join("nowhere"), "trusted": true});
    let (status, body) = serve.request("PUT", "/v1/hooks/trust", Some(gone)).await;
    assert_eq!((status, body["error"]["code"].as_str()), (400, Some("ERR_BAD_REQUEST")), "{body}");
}

#[tokio::test]
async fn a_user_prompt_submit_block_stores_nothing_and_a_broken_file_is_said_and_runs_nothing() {
    let bin = tempfile::tempdir().unwrap();
    let answer = r#"{"decision":"block","reason":"no secrets in prompts"}"#;
    let hook =
        script(bin.path(), "guard.sh", &format!("grep -q 'password' && echo '{answer}'\nexit 0"));
    let provider = ScriptedServer::start(Script::replies([Reply::text("fine")])).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let hooks = serve.home_path().join("hooks.json");
    std::fs::write(&hooks, hooks_json(&[("UserPromptSubmit", "", &hook, 10)])).unwrap();
    let id = serve.create_chat(json!({"plan_mode": false})).await;

    let blocked = json!({"content": "my password is hunter2"});
    let (status, body) = serve.post(&format!("/v1/chats/{id}/messages"), blocked.clone()).await;
    assert_eq!((status, body["error"]["code"].as_str()), (403, Some("ERR_HOOK_BLOCKED")), "{body}");
    assert!(body["error"]["message"].as_str().unwrap().contains("no secrets in prompts"), "{body}");
    assert_eq!(serve.chat(&id).await["messages"], json!([]), "nothing stored");
    assert!(provider.requests().is_empty(), "nothing sent");

    std::fs::write(&hooks, r#"{"hooks":{"BeforeEverything":[]}}"#).unwrap();
    let (_, view) = serve.get("/v1/hooks").await;
    let problem = &view["errors"][0];
    assert_eq!(problem["file"].as_str(), hooks.to_str(), "{view}");
    assert!(
        problem["message"].as_str().unwrap().contains("unknown event \"BeforeEverything\""),
        "{view}"
    );
    run_turn(&serve, &id, "my password is hunter2").await;
    assert_eq!(provider.requests().len(), 1, "a file with an error runs none of its hooks");
}

/// A FIFO in `dir` the hooks write to and the test reads from as they run: each line the
/// event a hook was told.
fn hook_pipe(dir: &Path) -> (PathBuf, std::io::BufReader<std::fs::File>) {
    let fifo = dir.join("told");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    // Opened for reading and writing: opening never blocks, and the hooks always find a reader.
    let file = std::fs::OpenOptions::new().read(true).write(true).open(&fifo).unwrap();
    (fifo, std::io::BufReader::new(file))
}

#[tokio::test]
async fn the_lifecycle_events_reach_their_hooks() {
    let (workspace, bin) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (fifo, mut told) = hook_pipe(bin.path());
    let tell = script(bin.path(), "tell.sh", &format!("echo \"$1\" > {}", fifo.display()));
    let events = ["SessionStart", "PlanReady", "PlanApproved", "TaskDone", "PlanCompleted", "Stop"];
    let mut entries: Vec<(&str, &str, String, u64)> =
        events.iter().map(|event| (*event, "", format!("{tell} {event}"), 10)).collect();
    entries.push(("Notification", "plan", format!("{tell} Notification:plan"), 10));
    entries.push(("Notification", "done", format!("{tell} Notification:done"), 10));
    let listed: Vec<(&str, &str, &str, u64)> =
        entries.iter().map(|(e, m, c, t)| (*e, *m, c.as_str(), *t)).collect();
    let script = Script::new()
        .route(planner(), [plan("One step", &["Do it"])])
        .route(anyone(), [done(1), Reply::text("finished")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    std::fs::write(serve.home_path().join("hooks.json"), hooks_json(&listed)).unwrap();
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    serve.plan_approve_and_run(&id, "Do the one thing").await;

    let mut expected: Vec<&str> = events.to_vec();
    expected.extend(["Stop", "Notification:plan", "Notification:done"]);
    expected.sort_unstable();
    let heard = tokio::task::spawn_blocking(move || {
        let mut heard = Vec::new();
        while heard.len() < expected.len() {
            let mut line = String::new();
            std::io::BufRead::read_line(&mut told, &mut line).unwrap();
            heard.push(line.trim().to_owned());
        }
        heard.sort_unstable();
        (heard, expected)
    });
    let (heard, expected) = tokio::time::timeout(std::time::Duration::from_secs(60), heard)
        .await
        .expect("every hook was told within a minute")
        .unwrap();
    assert_eq!(heard, expected, "two turns end (the planner's, the executor's): two Stops");
}
