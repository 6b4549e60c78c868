//! The code sandbox through the API (DESIGN §11), driven by the scripted provider: the
//! executor creates the venv, installs a library from a local wheel with real pip, runs a
//! script that uses it, and closes its tasks with gates that Preflight runs itself. The
//! planner never sees the sandbox; a failing gate refuses the `done`; a chat without a
//! sandbox refuses a gate; `[sandbox] enabled = false` removes it.
//!
//! The sandbox server is `preflight-sandbox` beside the `preflight` binary: the workspace
//! build (`cargo build --workspace`, what scripts/test.sh runs) makes it.

mod support;

use preflight_testkit::{build_wheel, Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// The text of the tool result the request `index` carried last.
fn last_tool_result(requests: &[preflight_testkit::RecordedRequest], index: usize) -> String {
    let messages = requests[index].body["messages"].as_array().expect("messages");
    let last = messages.iter().rev().find(|m| m["role"] == "tool").expect("a tool result");
    last["content"].as_str().unwrap_or_default().to_owned()
}

fn the_sandbox_is_built() {
    let sandbox =
        std::path::Path::new(env!("CARGO_BIN_EXE_preflight")).with_file_name("preflight-sandbox");
    assert!(
        sandbox.is_file(),
        "{} is missing: build the workspace (`cargo build --workspace`), as scripts/test.sh does",
        sandbox.display()
    );
}

/// Install, prove it, write and run a script, a command that hangs, a failing gate, a
/// passing one with a made-up exit code and evidence, the final answer.
fn executor_replies() -> Vec<Reply> {
    let script_file =
        "printf 'import preflighttiny\\nprint(\"tiny\", preflighttiny.VERSION)\\n' > use_tiny.py";
    vec![
        call("mcp_code-sandbox_install_packages", json!({"packages": ["preflighttiny"]})),
        call(
            "turn_plan",
            json!({"op": "done", "id": 1, "gate": {"command": "python -c 'import preflighttiny'"}}),
        ),
        call(
            "mcp_code-sandbox_run_command",
            json!({"command": format!("{script_file} && python use_tiny.py")}),
        ),
        // A command that hangs is killed at its timeout; the chat goes on.
        call("mcp_code-sandbox_run_command", json!({"command": "sleep 60", "timeout_s": 1})),
        call(
            "turn_plan",
            json!({"op": "done", "id": 2, "gate": {"command": "python use_tiny.py | grep -q 'tiny 9.9'"}}),
        ),
        call(
            "turn_plan",
            json!({"op": "done", "id": 2, "gate": {"command": "python use_tiny.py", "exit_code": 3, "evidence": "all good, trust me"}}),
        ),
        Reply::text("The library is installed and the script runs."),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_executor_installs_runs_and_closes_tasks_with_gates_preflight_ran() {
    the_sandbox_is_built();
    let workspace = tempfile::tempdir().unwrap();
    // Inside the workspace: the sandbox's /tmp is its own, so a wheel in the host's is unseen.
    let wheels = workspace.path().join("wheels");
    build_wheel(&wheels, "preflighttiny", "0.1.0").unwrap();
    let executor = executor_replies();
    let script = Script::new()
        .route(planner(), [plan("Use tiny", &["Install the library", "Use it in a script"])])
        .route(anyone(), executor);
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config(&provider.openai_url())).unwrap();
    let links = wheels.display().to_string();
    let serve = Serve::start_with_env(home, &[("PIP_NO_INDEX", "1"), ("PIP_FIND_LINKS", &links)]);
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    let events = serve.plan_approve_and_run(&id, "Use tiny").await;

    check_the_runs(&provider.requests(), workspace.path());

    let (status, view) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(status, 200, "{view}");
    let tasks = view["tasks"].as_array().unwrap();
    assert!(tasks.is_empty() || tasks.iter().all(|t| t["status"] == "done"), "{view}");
    check_the_gate(&events.seen);

    let (status, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!(status, 200, "{sandbox}");
    assert_eq!(sandbox["available"], true, "{sandbox}");
    let text = sandbox["text"].as_str().unwrap();
    assert!(text.contains("preflighttiny 0.1.0"), "{text}");
    assert!(!text.contains("{\"confined\""), "the words, not the structured copy: {text}");
    assert_eq!(sandbox["info"]["venv"]["exists"], true, "{sandbox}");
    let confined = sandbox["confined"].as_bool().unwrap();
    assert_eq!(confined, text.contains("Confined by bubblewrap"), "{text}");
}

/// Task 2's gate in the last `plan` event that had both tasks: Preflight's measured run.
fn check_the_gate(seen: &[(String, Value)]) {
    let last_full = seen
        .iter()
        .rev()
        .find(|(name, data)| {
            name == "plan" && data["tasks"].as_array().is_some_and(|t| t.len() == 2)
        })
        .map(|(_, data)| data)
        .expect("a plan event with both tasks");
    let second = &last_full["tasks"][1];
    assert_eq!(second["status"], "done", "{last_full}");
    assert_eq!(second["origin"], "plan", "a step of the approved plan: {second}");
    let (created, updated) = (second["created_at"].as_str(), second["updated_at"].as_str());
    assert!(created.is_some_and(|c| updated.is_some_and(|u| u > c)), "stamped: {second}");
    let gate = &second["gate"];
    assert_eq!(gate["command"], "python use_tiny.py", "{gate}");
    assert_eq!((gate["exit_code"].clone(), gate["passes"].clone()), (json!(0), json!(true)));
    assert_eq!(gate["evidence"], "tiny 0.1.0", "the run's output, not the model's words");
    assert!(
        gate["duration_ms"].as_u64().is_some() && gate["last_run"].as_str().unwrap().len() > 10
    );
}

/// The planner saw no sandbox, the executor all four tools; each run's result as the model
/// read it: the install, the script's output, the failing gate, the passing one.
fn check_the_runs(requests: &[preflight_testkit::RecordedRequest], workspace: &std::path::Path) {
    let tools = |index: usize| -> Vec<String> {
        let tools = requests[index].body["tools"].as_array().cloned().unwrap_or_default();
        tools.iter().map(|t| t["function"]["name"].as_str().unwrap().to_owned()).collect()
    };
    assert!(
        !tools(0).iter().any(|t| t.starts_with("mcp_code-sandbox_")),
        "planner: {:?}",
        tools(0)
    );
    for tool in ["install_packages", "run_command", "run_python", "sandbox_info"] {
        let name = format!("mcp_code-sandbox_{tool}");
        assert!(tools(1).contains(&name), "executor lacks {name}: {:?}", tools(1));
    }
    let installed = last_tool_result(requests, 2);
    assert!(installed.contains("installed: preflighttiny 0.1.0"), "{installed}");
    assert!(workspace.join(".sandbox/venv/bin/python").exists());
    let ran = last_tool_result(requests, 4);
    assert!(ran.contains("exit code 0") && ran.contains("tiny 0.1.0"), "{ran}");
    let hung = last_tool_result(requests, 5);
    assert!(hung.contains("(timed out: the whole process group was killed)"), "{hung}");
    let failed = last_tool_result(requests, 6);
    assert!(failed.contains("The gate failed") && failed.contains("exited with 1"), "{failed}");
    assert!(failed.contains("Task 2 stays as it was"), "{failed}");
    let passed = last_tool_result(requests, 7);
    assert!(
        passed.contains("Preflight ran the gate `python use_tiny.py`: exit code 0"),
        "{passed}"
    );
    assert!(passed.contains("Preflight measures them"), "{passed}");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_sandbox_a_gate_is_refused_and_the_chat_goes_on() {
    the_sandbox_is_built();
    let gate = json!({"op": "done", "id": 1, "gate": {"command": "true"}});
    let script = Script::new()
        .route(planner(), [plan("One step", &["Do it"]), plan("One step", &["Do it"])])
        .route(
            anyone(),
            [
                call("turn_plan", gate.clone()),
                call("turn_plan", json!({"op": "done", "id": 1})),
                Reply::text("Done without a check."),
                call("turn_plan", gate),
                Reply::text("No sandbox here."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let config = format!("{}\n[sandbox]\nenabled = false\n", openai_config(&provider.openai_url()));
    let serve = Serve::start(&config);
    let workspace = tempfile::tempdir().unwrap();

    // No workspace: no sandbox.
    let id = serve.create_chat(json!({})).await;
    serve.plan_approve_and_run(&id, "Go").await;
    let requests = provider.requests();
    let refusal = last_tool_result(&requests, 2);
    assert!(refusal.contains("this chat has no code sandbox"), "{refusal}");
    let (_, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!(
        (sandbox["available"].clone(), sandbox["confined"].clone()),
        (json!(false), json!(false))
    );
    assert!(sandbox["text"].as_str().unwrap().contains("no workspace"), "{sandbox}");

    // A workspace, but `[sandbox] enabled = false`: no sandbox tools, the gate refused.
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    serve.plan_approve_and_run(&id, "Go").await;
    let requests = provider.requests();
    let executor = &requests[requests.len() - 2];
    assert!(!executor.body.to_string().contains("mcp_code-sandbox_"), "sandbox tools offered");
    let refusal = last_tool_result(&requests, requests.len() - 1);
    assert!(refusal.contains("this chat has no code sandbox"), "{refusal}");
    let (_, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
    assert_eq!(sandbox["available"], false, "{sandbox}");
    assert!(!workspace.path().join(".sandbox").exists(), "nothing ran in the workspace");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_too_wide_is_refused() {
    let serve = Serve::start("");
    let data = serve.home_path().to_path_buf();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
    let holder = data.parent().unwrap().to_path_buf();
    let project = tempfile::tempdir().unwrap();
    for (folder, why) in [
        (std::path::PathBuf::from("/"), "the root of the file system"),
        (std::path::PathBuf::from(&home), "your home folder"),
        (data.clone(), "Preflight's data folder"),
        (holder, "Preflight's data folder or holds it"),
    ] {
        let (status, body) = serve.post("/v1/chats", json!({"workspace": folder})).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("ERR_BAD_REQUEST")),
            "{body}"
        );
        assert!(body["error"]["message"].as_str().unwrap().contains(why), "{body}");
    }
    let (_, chats) = serve.get("/v1/chats").await;
    assert_eq!(chats["data"].as_array().map(Vec::len), Some(0), "nothing was created: {chats}");
    // A project folder is fine; moving that chat to `/` is refused and changes nothing.
    let id = serve.create_chat(json!({"workspace": project.path()})).await;
    let (status, body) =
        serve.request("PATCH", &format!("/v1/chats/{id}"), Some(json!({"workspace": "/"}))).await;
    assert_eq!(status, 400, "{body}");
    let chat = serve.chat(&id).await;
    let kept = project.path().to_string_lossy().into_owned();
    assert_eq!(
        chat["chat"]["workspace"].as_str().or(chat["workspace"].as_str()),
        Some(kept.as_str()),
        "{chat}"
    );
}

/// Issue 46: a folder holding the home folder (`/home`) would hand a chat's tools the whole
/// home as well, though the data folder lives elsewhere.
#[tokio::test(flavor = "multi_thread")]
async fn a_workspace_holding_the_home_folder_is_refused() {
    let outside = tempfile::tempdir().unwrap();
    let home = outside.path().join("home/someone");
    std::fs::create_dir_all(&home).unwrap();
    let data = tempfile::tempdir().unwrap();
    std::fs::write(data.path().join("config.toml"), "").unwrap();
    let serve = Serve::start_with_env(data, &[("HOME", home.to_str().unwrap())]);
    for folder in [outside.path().join("home"), outside.path().to_path_buf(), home.clone()] {
        let (status, body) = serve.post("/v1/chats", json!({"workspace": folder})).await;
        assert_eq!(
            (status, body["error"]["code"].as_str()),
            (400, Some("ERR_BAD_REQUEST")),
            "{}: {body}",
            folder.display()
        );
        let message = body["error"]["message"].as_str().unwrap();
        assert!(message.contains("your home folder"), "{message}");
    }
    let (_, chats) = serve.get("/v1/chats").await;
    assert_eq!(chats["data"].as_array().map(Vec::len), Some(0), "nothing was created: {chats}");
    let project = outside.path().join("home/someone/project");
    std::fs::create_dir_all(&project).unwrap();
    serve.create_chat(json!({"workspace": project})).await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_executor_cannot_write_into_git_through_the_filesystem_server() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(workspace.path().join(".git/hooks")).unwrap();
    std::fs::write(workspace.path().join(".git/config"), "[core]\n").unwrap();
    let ws = workspace.path().canonicalize().unwrap();
    let hook = ws.join(".git/hooks/pre-commit").display().to_string();
    let write = |path: &str| {
        call(
            "mcp_filesystem_write_file",
            json!({"path": path, "content": "#!/bin/sh\ntouch /tmp/pwned\n"}),
        )
    };
    let allowed = ws.join("notes.txt").display().to_string();
    let script = Script::new().route(planner(), [plan("One step", &["Write"])]).route(
        anyone(),
        [
            write(&hook),
            write(&format!("{}/.git/config", ws.display())),
            write(&allowed),
            Reply::text("Tried."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    serve.plan_approve_and_run(&id, "Go").await;
    let requests = provider.requests();
    let first = last_tool_result(&requests, 2);
    assert!(first.contains("may not write into the workspace's `.git`"), "{first}");
    let second = last_tool_result(&requests, 3);
    assert!(second.contains("may not write into the workspace's `.git`"), "{second}");
    assert!(!ws.join(".git/hooks/pre-commit").exists());
    assert_eq!(std::fs::read_to_string(ws.join(".git/config")).unwrap(), "[core]\n");
    assert!(ws.join("notes.txt").exists(), "{}", last_tool_result(&requests, 4));
}
