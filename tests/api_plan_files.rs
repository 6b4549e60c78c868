//! Plans as files (DESIGN §6) through the API: an approved plan in a chat that saves plans
//! is written under `.dwp/plans/`, the executor's `turn_plan` changes reach `state.json`,
//! and a `done` without a passing gate (one Preflight ran in the sandbox) is refused.

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

/// The executor's replies: `done` without a gate, a gate that fails, the fix, the same gate
/// passing (a `.dwp` task completes when every gate it ran passes on its latest run).
fn gate_attempts() -> Vec<Reply> {
    let done = |gate: Value| {
        Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1, "gate": gate})).into()
    };
    let fix = json!({"command": "echo 'test result: ok. 3 passed' > result.txt"});
    vec![
        Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1})).into(),
        done(json!({"command": "cat result.txt"})),
        Answer::new().tool_call("mcp_code-sandbox_run_command", fix).into(),
        done(json!({"command": "cat result.txt", "exit_code": 0, "evidence": "claimed"})),
        Reply::text("Step one is checked."),
        Reply::text("Still documenting."),
    ]
}

#[tokio::test]
async fn an_approved_plan_is_written_and_done_needs_a_passing_gate() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let script = Script::new()
        .route(planner(), [plan("Tested change", &["Change the code", "Document it"])])
        .route(anyone(), gate_attempts());
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
    let state: Value =
        serde_json::from_str(&std::fs::read_to_string(folder.join("state.json")).unwrap()).unwrap();
    check_gates(&state, &provider.requests());
    let progress = std::fs::read_to_string(folder.join("PROGRESS.md")).unwrap();
    assert!(progress.contains("gate `cat result.txt`: fails (exit 1)"), "on file: {progress}");
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert!(readme.contains("[x]") && readme.contains("[ ]"), "{readme}");
    // The turn ended with task 2 in progress: a checkpoint says where and why.
    assert_eq!(state["checkpoint"]["task"], 2, "{state:#}");
    assert_eq!(state["checkpoint"]["step"], "Document it", "{state:#}");
    let note = state["checkpoint"]["note"].as_str().unwrap();
    assert!(note.contains("the executor answered") && note.contains("1 of 2 tasks left"), "{note}");

    // The API (and so the desktop's task panel) names the folder.
    let (status, view) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(status, 200, "{view}");
    let name = folder.file_name().unwrap().to_string_lossy();
    assert_eq!(view["files"]["dir"], format!(".dwp/plans/{name}"), "{view}");
    assert_eq!(view["files"]["path"], folder.to_string_lossy().as_ref(), "{view}");
    assert_eq!(view["tasks"].as_array().unwrap().len(), 2, "{view}");

    // Continue: the folder says what made the work go on before it unblocks task 2.
    let (status, body) = serve.post(&format!("/v1/chats/{id}/continue"), json!(null)).await;
    assert_eq!(status, 202, "{body}");
    events.wait_for_phase("idle").await;
    let progress = std::fs::read_to_string(folder.join("PROGRESS.md")).unwrap();
    let goes_on = progress.find("The work goes on: the user pressed Continue.");
    let unblocked = progress.find("Task 2 unblocked");
    assert!(goes_on.is_some() && goes_on < unblocked, "said first: {progress}");
}

/// Task 1 completed on its gate's passing rerun, both runs on file, as Preflight measured them.
fn check_gates(state: &Value, requests: &[preflight_testkit::RecordedRequest]) {
    let tasks = state["tasks"].as_array().expect("state.json lists tasks");
    assert_eq!(tasks[0]["status"], "completed", "{state:#}");
    // The turn ended with task 2 open: Preflight paused it for the user (issue 30), saying why.
    assert_eq!(tasks[1]["status"], "blocked", "{state:#}");
    let why = tasks[1]["block"]["reason"].as_str().unwrap();
    assert!(why.contains("the executor stopped"), "{state:#}");
    assert_eq!(tasks[1]["block"]["needs"], "Continue in the chat, or a new message", "{state:#}");
    let refusal = requests[2].body.to_string();
    assert!(refusal.contains("gate"), "the first done, without a gate, was refused: {refusal}");
    let failed = requests[3].body.to_string();
    assert!(failed.contains("The gate failed"), "the failing gate refused the done: {failed}");
    let gates = tasks[0]["gates"].as_array().expect("task 1 records its gate runs");
    let last = gates.last().unwrap();
    assert_eq!((last["passes"].clone(), last["exit_code"].clone()), (json!(true), json!(0)));
    assert_eq!(last["evidence"], "test result: ok. 3 passed", "measured, not claimed");
}

/// A drop of a plan step, an own task added and dropped, the other step done with a gate.
fn drop_script() -> Script {
    let drop_first = Answer::new()
        .tool_call(
            "turn_plan",
            json!({"op": "drop", "id": 1, "outcome": "the config already has it"}),
        )
        .into();
    let finish_second = Answer::new()
        .tool_call(
            "turn_plan",
            json!({"op": "done", "id": 2, "gate": {"command": "echo 'all 4 checks passed'"}}),
        )
        .into();
    let own = |op: Value| Answer::new().tool_call("turn_plan", op).into();
    Script::new()
        .route(planner(), [plan("Two steps", &["Add the setting", "Use the setting"])])
        .route(
            anyone(),
            [
                drop_first,
                own(json!({"op": "add", "tasks": ["Try a second approach"]})),
                own(json!({"op": "drop", "id": 3, "outcome": "the first one works"})),
                finish_second,
                Reply::text("Done; step one was not needed."),
            ],
        )
}

#[tokio::test]
async fn a_dropped_step_waits_for_the_user_and_its_approval_skips_it_and_completes_the_plan() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let script = drop_script();
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve
        .post(&format!("/v1/chats/{id}/messages"), json!({"content": "Add and use a setting"}))
        .await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events.wait_for_phase("idle").await;

    // The plan step's drop waits for the user; the executor's own task left the plan by
    // itself.
    let folder = plan_folder(workspace.path());
    let read_state = || -> Value {
        serde_json::from_str(&std::fs::read_to_string(folder.join("state.json")).unwrap()).unwrap()
    };
    let state = read_state();
    // The step whose drop waits is paused for the user's answer (issue 30), not in progress.
    assert_eq!(state["tasks"][0]["status"], "blocked", "{state:#}");
    let needs = state["tasks"][0]["block"]["needs"].as_str().unwrap();
    assert!(needs.contains("plan change"), "{state:#}");
    assert_eq!(state["tasks"][1]["status"], "completed", "{state:#}");
    assert_eq!(state["tasks"][2]["status"], "skipped", "{state:#}");
    assert_eq!(state["status"], "blocked", "{state:#}");
    let (_, changes) = serve.get(&format!("/v1/chats/{id}/plan/changes")).await;
    let change = &changes["changes"][0];
    assert_eq!(
        (change["kind"].clone(), change["status"].clone()),
        (json!("drop"), json!("pending"))
    );

    let cid = change["id"].as_str().unwrap();
    let (status, _) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for("the completion", |name, _| name == "completion").await;
    let state = read_state();
    assert_eq!(state["tasks"][0]["status"], "skipped", "{state:#}");
    assert_eq!(state["status"], "completed", "completed and skipped-by-the-user: {state:#}");
    assert!(state["blocked"].is_null(), "{state:#}");
    check_completed_files(&folder);
    // Answering twice is refused and writes nothing.
    let before = std::fs::read(folder.join("state.json")).unwrap();
    let (status, error) =
        serve.post(&format!("/v1/chats/{id}/plan/changes/{cid}/reject"), json!(null)).await;
    assert_eq!((status, error["error"]["code"].clone()), (409, json!("ERR_CHANGE_ANSWERED")));
    assert_eq!(std::fs::read(folder.join("state.json")).unwrap(), before);
}

/// The approved drop and the completion record, as PROGRESS.md and README.md show them.
fn check_completed_files(folder: &std::path::Path) {
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    let progress = std::fs::read_to_string(folder.join("PROGRESS.md")).unwrap();
    // The approved drop is an amendment record: what, why, and who approved it (issue 30).
    assert!(
        progress.contains("task 1 taken out of the plan (skipped)")
            && progress.contains("observed: the config already has it; approved by the user"),
        "{progress}"
    );
    assert!(progress.contains("added by the executor, dropped: the first one works"), "{progress}");
    assert!(
        progress.contains(
            "Plan completed: 1 of 2 steps done as planned, 0 reworded, 1 dropped, 1 added"
        ),
        "{progress}"
    );
    assert!(progress.contains("Summary: Done; step one was not needed."), "{progress}");
    assert!(
        readme.contains("~~**1.** Add the setting~~") && readme.contains("Status: skipped"),
        "{readme}"
    );
}

#[tokio::test]
async fn a_chat_that_does_not_save_plans_writes_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    let script = Script::new().route(planner(), [plan("No files", &["one"])]).route(
        anyone(),
        [
            Answer::new().tool_call("turn_plan", json!({"op": "done", "id": 1})).into(),
            Reply::text("done"),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Go"})).await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events
        .wait_for("the closed list", |name, data| name == "plan" && data["tasks"] == json!([]))
        .await;
    assert!(!workspace.path().join(".dwp").exists());
    let (_, view) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert!(view["files"].is_null(), "{view}");
}

#[tokio::test]
async fn a_stopped_turn_leaves_a_checkpoint_in_the_task_in_progress() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let first_done = Answer::new()
        .tool_call(
            "turn_plan",
            json!({"op": "done", "id": 1, "gate": {"command": "echo 'Finished dev profile'"}}),
        )
        .into();
    let script =
        Script::new().route(planner(), [plan("Long job", &["Prepare", "Migrate the data"])]).route(
            anyone(),
            [first_done, Answer::new().text("Migrating the first table…").stall().into()],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Move the data"})).await;
    events.wait_for_phase("awaiting_approval").await;
    serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    events
        .wait_for("the stalled answer's first words", |name, data| {
            name == "delta" && data["text"].as_str().is_some_and(|t| t.contains("Migrating"))
        })
        .await;
    let (status, _) = serve.post(&format!("/v1/chats/{id}/stop"), json!(null)).await;
    assert_eq!(status, 200);
    events.wait_for_phase("idle").await;

    let state: Value = serde_json::from_str(
        &std::fs::read_to_string(plan_folder(workspace.path()).join("state.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(state["tasks"][1]["status"], "blocked", "paused by the stop: {state:#}");
    assert_eq!(state["blocked"]["task"], 2, "{state:#}");
    assert_eq!(state["checkpoint"]["task"], 2, "{state:#}");
    assert_eq!(state["checkpoint"]["step"], "Migrate the data", "{state:#}");
    assert!(
        state["checkpoint"]["note"].as_str().unwrap().contains("stopped by the user"),
        "{state:#}"
    );
}

/// `done` of task `id` with a gate Preflight runs in the sandbox.
fn done_with_gate(id: u32, command: &str) -> Reply {
    let gate = json!({"command": command});
    Answer::new().tool_call("turn_plan", json!({"op": "done", "id": id, "gate": gate})).into()
}

fn state_of(workspace: &std::path::Path) -> Value {
    let text = std::fs::read_to_string(plan_folder(workspace).join("state.json")).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn statuses(state: &Value) -> Vec<String> {
    let tasks = state["tasks"].as_array().unwrap_or_else(|| panic!("{state:#}"));
    tasks.iter().map(|task| task["status"].as_str().unwrap().to_owned()).collect()
}

/// A restore and *Clear list* change the task list outside the executor's turn: both reach
/// the plan folder through the work stream, as every other change does (issue 47).
#[tokio::test]
async fn a_restore_and_a_cleared_list_reach_the_plan_folder() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join(".git")).unwrap();
    let sandbox = |command: &str| -> Reply {
        let arguments = json!({ "command": command });
        Answer::new().tool_call("mcp_code-sandbox_run_command", arguments).into()
    };
    let steps = ["Write a.txt", "Write b.txt", "Write c.txt"];
    let script = Script::new().route(planner(), [plan("Three files", &steps)]).route(
        anyone(),
        [
            sandbox("printf 'a\\n' > a.txt"),
            done_with_gate(1, "test -f a.txt"),
            sandbox("printf 'b\\n' > b.txt"),
            done_with_gate(2, "test -f b.txt"),
            Reply::text("Two of the three are written."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let id = serve.create_chat(json!({"workspace": workspace.path()})).await;
    serve.plan_approve_and_run(&id, "Write the three files").await;
    let state = state_of(workspace.path());
    assert_eq!(statuses(&state)[..2], ["completed", "completed"], "{state:#}");

    // Back to where task 2 started: the folder hears the restore and reopens task 2.
    let (_, list) = serve.get(&format!("/v1/chats/{id}/checkpoints")).await;
    let spans = list["tasks"].as_array().unwrap_or_else(|| panic!("{list:#}"));
    let task2 = spans.iter().find(|span| span["task"] == 2).unwrap_or_else(|| panic!("{list:#}"));
    let path = format!("/v1/chats/{id}/checkpoints/{}/restore", task2["from"]);
    let (status, preview) = serve.get(&path).await;
    assert_eq!(status, 200, "{preview}");
    let (status, view) = serve.post(&path, json!({"digest": preview["digest"]})).await;
    assert_eq!(status, 202, "{view}");
    assert!(!workspace.path().join("b.txt").exists(), "task 2's file is gone again");
    let state = state_of(workspace.path());
    assert_eq!(statuses(&state), ["completed", "in_progress", "pending"], "{state:#}");
    let folder = plan_folder(workspace.path());
    check_the_folder_tells_the_truth(&folder, serve.home_path());

    // Clear list: the tasks it left open are blocked in the folder, saying why.
    let (status, cleared) = serve.request("DELETE", &format!("/v1/chats/{id}/plan"), None).await;
    assert_eq!((status, &cleared["deleted"]), (200, &json!(true)), "{cleared}");
    let state = state_of(workspace.path());
    assert_eq!(statuses(&state), ["completed", "blocked", "blocked"], "{state:#}");
    let reason = state["tasks"][1]["block"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("cleared the task list"), "{state:#}");
}

/// After the restore to before task 2 (issue 49): every file says tasks 2 and 3 are open,
/// and why; the verifier agrees, also with the chat's work. A folder that then claims more
/// than the chat's work is reported though its files agree, and the claim is taken back.
fn check_the_folder_tells_the_truth(folder: &std::path::Path, home: &std::path::Path) {
    // Every file says tasks 2 and 3 are open, and why (issue 49); the verifier agrees.
    let readme = std::fs::read_to_string(folder.join("README.md")).unwrap();
    assert_eq!(readme.matches("- [x]").count(), 1, "only task 1 is ticked: {readme}");
    let progress = std::fs::read_to_string(folder.join("PROGRESS.md")).unwrap();
    assert!(
        progress.contains(
            "Task 2 open again (was completed): the user restored the workspace to checkpoint"
        ),
        "{progress}"
    );
    assert!(!progress.contains("restarted by the executor"), "{progress}");
    assert_eq!(dwp_verify(folder, home), (true, vec![]), "and with the chat");
    // A folder that claims more than the chat's work is reported, though its files agree.
    dwp_update(folder, &["--task", "3", "--complete", "--gate", "test -f c.txt|0|c.txt is there"]);
    let (passed, findings) = dwp_verify(folder, home);
    assert!(!passed, "{findings:?}");
    assert_eq!(findings.len(), 1, "{findings:?}");
    assert!(
        findings[0].contains(
            "[work] task 3: the chat's task list has it pending, but state.json says completed"
        ),
        "{findings:?}"
    );
    dwp_update(folder, &["--task", "3", "--reopen-reason", "it was never done"]);
}

/// `preflight dwp update FOLDER ARGS…`, which must succeed.
fn dwp_update(folder: &std::path::Path, args: &[&str]) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["dwp", "update"])
        .arg(folder)
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `preflight dwp verify FOLDER` against the chat's data folder `home`: whether it passed,
/// and its finding lines.
fn dwp_verify(folder: &std::path::Path, home: &std::path::Path) -> (bool, Vec<String>) {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["dwp", "verify"])
        .arg(folder)
        .env("PREFLIGHT_HOME", home)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let findings = stdout.lines().filter(|line| line.starts_with('[')).map(str::to_owned).collect();
    (out.status.success(), findings)
}
