//! A `.sandbox/venv` an earlier Preflight made, before venvs were recorded (issue 49): the
//! sandbox refuses it with its own code (`ERR_VENV_ADOPTABLE`) until the user adopts it
//! (`POST /v1/chats/{id}/sandbox/venv/adopt {"confirm": true}`); then the next run uses it.
//! A planted venv stays refused (`ERR_VENV_FOREIGN`), and adopting it is a 409 that changes
//! nothing. The venvs are real (`/usr/bin/python3 -m venv`).

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use std::path::Path;
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// A venv as an earlier Preflight made it: in the workspace's `.sandbox`, by Debian's Python.
fn earlier_venv(workspace: &Path) -> std::path::PathBuf {
    std::fs::create_dir(workspace.join(".sandbox")).unwrap();
    let venv = workspace.join(".sandbox/venv");
    let made = std::process::Command::new("/usr/bin/python3")
        .args(["-m", "venv"])
        .arg(&venv)
        .status()
        .unwrap();
    assert!(made.success(), "python3 -m venv");
    venv
}

/// The text of every tool result the provider was sent, in order.
fn tool_results(requests: &[preflight_testkit::RecordedRequest]) -> Vec<String> {
    let last = requests.last().expect("requests");
    let messages = last.body["messages"].as_array().expect("messages");
    let tools = messages.iter().filter(|m| m["role"] == "tool");
    tools.map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect()
}

fn records(serve: &Serve) -> usize {
    let dir = serve.home_path().join("sandbox/venvs");
    std::fs::read_dir(dir).map(|d| d.count()).unwrap_or(0)
}

const WHERE: &str = "import sys; print('prefix', sys.prefix)";

#[tokio::test(flavor = "multi_thread")]
async fn an_earlier_venv_is_refused_until_the_user_adopts_it_then_used() {
    let workspace = tempfile::tempdir().unwrap();
    let ws = workspace.path().canonicalize().unwrap();
    let venv = earlier_venv(&ws);
    let run = || call("mcp_code-sandbox_run_python", json!({"code": WHERE}));
    let script = Script::new()
        .route(planner(), [plan("Where", &["Print the prefix"]), plan("Again", &["Print it"])])
        .route(anyone(), [run(), Reply::text("refused"), run(), Reply::text("ran")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config(&provider.openai_url())).unwrap();
    let serve = Serve::start_in(home);
    let first = serve.create_chat(json!({"workspace": ws, "save_plans": false})).await;
    serve.plan_approve_and_run(&first, "Where").await;
    let refused = tool_results(&provider.requests()).join("\n");
    assert!(refused.contains("looks like a venv an earlier Preflight made"), "{refused}");
    assert!(!refused.contains("prefix "), "not run before adoption: {refused}");

    let (status, sandbox) = serve.get(&format!("/v1/chats/{first}/sandbox")).await;
    assert_eq!(status, 200, "{sandbox}");
    assert_eq!(sandbox["venv_refusal"]["code"], "ERR_VENV_ADOPTABLE", "{sandbox}");
    assert_eq!(sandbox["info"]["venv"]["adoptable"], true, "{sandbox}");

    let adopt = format!("/v1/chats/{first}/sandbox/venv/adopt");
    for unconfirmed in [json!({}), json!({"confirm": false}), json!(null)] {
        let (status, answer) = serve.post(&adopt, unconfirmed.clone()).await;
        assert_eq!(status, 400, "{unconfirmed}: {answer}");
        assert_eq!(answer["error"]["code"], "ERR_BAD_REQUEST", "{answer}");
    }
    assert_eq!(records(&serve), 0, "nothing adopted without the user's confirmation");
    let (status, adopted) = serve.post(&adopt, json!({"confirm": true})).await;
    assert_eq!(status, 200, "{adopted}");
    assert_eq!(adopted["venv_refusal"], Value::Null, "{adopted}");
    assert_eq!(adopted["info"]["venv"]["ours"], true, "{adopted}");
    assert_eq!(records(&serve), 1, "recorded as a venv the sandbox made");

    let second = serve.create_chat(json!({"workspace": ws, "save_plans": false})).await;
    serve.plan_approve_and_run(&second, "Again").await;
    let ran = tool_results(&provider.requests()).join("\n");
    assert!(ran.contains(&format!("prefix {}", venv.display())), "the adopted venv ran: {ran}");
}

/// Something a repository could plant in an otherwise real venv.
type Plant = fn(&Path);

fn plants() -> Vec<(&'static str, Plant)> {
    vec![
        ("bin/python3 a script", |venv| {
            std::fs::remove_file(venv.join("bin/python3")).unwrap();
            std::fs::write(venv.join("bin/python3"), "#!/bin/sh\necho faked\n").unwrap();
            let mode = std::os::unix::fs::PermissionsExt::from_mode(0o755);
            std::fs::set_permissions(venv.join("bin/python3"), mode).unwrap();
        }),
        ("a link out of the workspace", |venv| {
            std::os::unix::fs::symlink("/etc", venv.join("lib/python3-etc")).unwrap();
        }),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn a_planted_venv_stays_refused_and_adopting_it_changes_nothing() {
    let provider = ScriptedServer::start(Script::new()).await.unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("config.toml"), openai_config(&provider.openai_url())).unwrap();
    let serve = Serve::start_in(home);
    for (name, plant) in plants() {
        let workspace = tempfile::tempdir().unwrap();
        let ws = workspace.path().canonicalize().unwrap();
        plant(&earlier_venv(&ws));
        let id = serve.create_chat(json!({"workspace": ws})).await;
        let (status, sandbox) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
        assert_eq!(status, 200, "{name}: {sandbox}");
        assert_eq!(sandbox["venv_refusal"]["code"], "ERR_VENV_FOREIGN", "{name}: {sandbox}");
        let adopt = format!("/v1/chats/{id}/sandbox/venv/adopt");
        let (status, answer) = serve.post(&adopt, json!({"confirm": true})).await;
        assert_eq!(status, 409, "{name}: {answer}");
        assert_eq!(answer["error"]["code"], "ERR_VENV_FOREIGN", "{name}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap().contains("cannot be adopted"));
        assert_eq!(records(&serve), 0, "{name}: nothing recorded");
        let (_, again) = serve.get(&format!("/v1/chats/{id}/sandbox")).await;
        assert_eq!(again["venv_refusal"]["code"], "ERR_VENV_FOREIGN", "{name}: {again}");
    }
    let bare = serve.create_chat(json!({})).await;
    let (status, answer) =
        serve.post(&format!("/v1/chats/{bare}/sandbox/venv/adopt"), json!({"confirm": true})).await;
    assert_eq!(status, 409, "a chat without a workspace has no venv: {answer}");
    assert_eq!(answer["error"]["code"], "ERR_VENV_FOREIGN", "{answer}");
}
