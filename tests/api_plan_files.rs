//! Plans as files (DESIGN §6) through the API: an approved plan in a chat that saves plans
//! is written under `.dwp/plans/`, the executor's `turn_plan` changes reach `state.json`,
//! and a `done` without a passing gate is refused.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

fn plan_folder(workspace: &std::path::Path) -> std::path::PathBuf {
    let plans = workspace.join(".dwp/plans");
    let mut folders: Vec<_> = std::fs::read_dir(&plans).expect(".dwp/plans exists").map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders.remove(0)
}

#[tokio::test]
async fn an_approved_plan_is_written_and_done_needs_a_passing_gate() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let without_gate = Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1})).into();
    let with_gate = Answer::new()
        .tool_call("turn_plan", json!({"op": "done", "id": 1, "gate": {"command": "cargo test", "exit_code": 0, "evidence": "test result: ok. 3 passed"}}))
        .into();
    let script = Script::new()
        .route(planner(), [plan("Tested change", &["Change the code", "Document it"])])
        .route(anyone(), [without_gate, with_gate, Reply::text("Step one is checked.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    assert_eq!(serve.chat(&id).await["save_plans"], true);
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Change it, tested"})).await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events.wait_for_phase("idle").await;

    let folder = plan_folder(workspace.path());
    for file in ["README.md", "PROGRESS.md", "manifest.json", "state.json"] {
        assert!(folder.join(file).is_file(), "{file} in {}", folder.display());
    }
    let state: Value = serde_json::from_str(&std::fs::read_to_string(folder.join("state.json")).unwrap()).unwrap();
    let tasks = state["tasks"].as_array().expect("state.json lists tasks");
    assert_eq!(tasks[0]["status"], "completed", "{state:#}");
    assert_eq!(tasks[1]["status"], "in_progress", "{state:#}");
    let requests = provider.requests();
    let refusal = requests[2].body.to_string();
    assert!(refusal.contains("gate"), "the first done, without a gate, was refused: {refusal}");
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(readme.contains("[x]") && readme.contains("[ ]"), "{readme}");
}

#[tokio::test]
async fn a_chat_that_does_not_save_plans_writes_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let script = Script::new()
        .route(planner(), [plan("No files", &["one"])])
        .route(anyone(), [Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1})).into(), Reply::text("done")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events.wait_for("the closed list", |name, data| name == "plan" && data["tasks"] == json!([])).await;
    assert!(!workspace.path().join(".dwp").exists());
}
