//! The plan folder never claims more than the truth (issue 49), through the API: a restore
//! of a finished plan withdraws its verdict (kept as history), and an edit of the request
//! sets the plan aside so that the plan made again gets a folder of its own.

mod support;

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, plan, planner};
use support::{openai_config, Serve};

fn plan_folder(workspace: &std::path::Path) -> std::path::PathBuf {
    let plans = workspace.join(".dwp/plans");
    let mut folders: Vec<_> =
        std::fs::read_dir(&plans).expect(".dwp/plans exists").map(|e| e.unwrap().path()).collect();
    assert_eq!(folders.len(), 1, "{folders:?}");
    folders.remove(0)
}

fn done_with_gate(id: u32, command: &str) -> Reply {
    let gate = json!({"command": command});
    Answer::new().tool_call("turn_plan", json!({"op": "done", "id": id, "gate": gate})).into()
}

fn state_of(workspace: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(plan_folder(workspace).join("state.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// `preflight dwp verify FOLDER` against the chat's data folder `home`: whether it passed,
/// how many findings it printed, and whether it held the folder to the chat's work.
fn dwp_verify(folder: &std::path::Path, home: &std::path::Path) -> (bool, usize, bool) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["dwp", "verify"])
        .arg(folder)
        .env("PREFLIGHT_HOME", home)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let findings = stdout.lines().filter(|line| line.starts_with('[')).count();
    (out.status.success(), findings, stdout.contains("checked against the work of chat"))
}

/// A restore of a finished plan withdraws its completion and its VERIFIED verdict: the
/// verdict is kept as history (state.json and analysis_results/history/), never as proof.
#[tokio::test]
async fn a_restore_of_a_finished_plan_withdraws_its_verdict() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let sandbox = |command: &str| -> Reply {
        let arguments = json!({ "command": command });
        Answer::new().tool_call("mcp_code-sandbox_run_command", arguments).into()
    };
    let steps = ["Write a.txt", "Write b.txt"];
    let script = Script::new().route(planner(), [plan("Two files", &steps)]).route(
        anyone(),
        [
            sandbox("printf 'a\\n' > a.txt"),
            done_with_gate(1, "test -f a.txt"),
            sandbox("printf 'b\\n' > b.txt"),
            done_with_gate(2, "test -f b.txt"),
            Reply::text("Both are written."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    serve.plan_approve_and_run(&id, "Write the two files").await;
    let state = state_of(workspace.path());
    assert_eq!(state["status"], "completed", "{state:#}");
    assert_eq!(state["verification"]["verdict"], "VERIFIED", "{state:#}");

    let (_, list) = serve.get(&format!("/v1/chats/{id}/checkpoints")).await;
    let spans = list["tasks"].as_array().unwrap_or_else(|| panic!("{list:#}"));
    let task2 = spans.iter().find(|span| span["task"] == 2).unwrap_or_else(|| panic!("{list:#}"));
    let path = format!("/v1/chats/{id}/checkpoints/{}/restore", task2["from"]);
    let (_, preview) = serve.get(&path).await;
    let (status, view) = serve.post(&path, json!({"digest": preview["digest"]})).await;
    assert_eq!(status, 202, "{view}");
    let folder = plan_folder(workspace.path());
    let state = state_of(workspace.path());
    assert_eq!(state["status"], "in_progress", "{state:#}");
    assert!(state.get("verification").is_none(), "{state:#}");
    assert_eq!(state["withdrawn_verifications"][0]["verdict"], "VERIFIED", "{state:#}");
    assert!(!folder.join("analysis_results/FINALIZATION.json").exists());
    assert!(folder.join("analysis_results/history/FINALIZATION-1.json").is_file());
    let progress = std::fs::read_to_string(folder.join("PROGRESS.md")).unwrap();
    assert!(progress.contains("The plan's completion is withdrawn"), "{progress}");
    assert_eq!(dwp_verify(&folder, serve.home_path()), (true, 0, true));
}

/// An edit of the first message sets the approved plan aside (issue 49): its folder says so
/// and stays a record, and the plan made again is written to a folder of its own — never
/// synced onto the old one.
#[tokio::test]
async fn an_edited_request_sets_the_plan_aside_and_the_next_plan_gets_its_own_folder() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let script = Script::new()
        .route(
            planner(),
            [
                plan("First plan", &["Write a.txt", "Check a.txt"]),
                plan("Second plan", &["Write b.txt"]),
            ],
        )
        .route(anyone(), [Reply::text("Not started yet."), Reply::text("Still thinking.")]);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.plan_approve_and_run(&id, "Write a file").await;
    let first_folder = plan_folder(workspace.path());

    let chat = serve.chat(&id).await;
    let first = chat["messages"][0]["id"].as_str().unwrap().to_owned();
    let path = format!("/v1/chats/{id}/messages/{first}");
    let (status, body) =
        serve.request("PUT", &path, Some(json!({"content": "Write b instead"}))).await;
    assert_eq!(status, 202, "{body}");
    events.wait_for_phase("awaiting_approval").await;
    let old: Value =
        serde_json::from_str(&std::fs::read_to_string(first_folder.join("state.json")).unwrap())
            .unwrap();
    assert!(
        old["superseded"]["why"].as_str().unwrap_or_default().contains("edited the request"),
        "{old:#}"
    );
    let progress = std::fs::read_to_string(first_folder.join("PROGRESS.md")).unwrap();
    assert!(progress.contains("The plan is set aside"), "{progress}");
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events.wait_for_phase("idle").await;
    let mut folders: Vec<_> = std::fs::read_dir(workspace.path().join(".dwp/plans"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    folders.sort();
    assert_eq!(folders.len(), 2, "{folders:?}");
    let new = folders.iter().find(|folder| **folder != first_folder).unwrap();
    let manifest: Value =
        serde_json::from_str(&std::fs::read_to_string(new.join("manifest.json")).unwrap()).unwrap();
    assert_eq!(manifest["title"], "Second plan", "{manifest:#}");
    let prompts = std::fs::read_to_string(new.join("PROMPTS.md")).unwrap();
    assert!(prompts.contains("Write b instead"), "PROMPTS.md holds the request: {prompts}");
    assert_eq!(dwp_verify(&first_folder, serve.home_path()), (true, 0, false), "a record now");
    assert_eq!(dwp_verify(new, serve.home_path()), (true, 0, true));
}
