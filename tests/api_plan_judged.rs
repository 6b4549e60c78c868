//! A plan the user can judge (DESIGN §14), through the API with the scripted provider: a plan
//! with every optional field is kept whole; after approval each step's check is the gate
//! Preflight runs when the executor finishes the task without naming one, another command is
//! a plan change the user answers; a dependency refuses `start`; `plan_status` is offered to
//! the planner and the executor; a scope keeps planning reads inside it; an executor's own
//! plan of two tasks is refused; the finished plan's outcome records reach the next planner.

mod support;

use preflight_testkit::{Answer, RecordedRequest, Reply, Script, ScriptedServer};
use serde_json::{json, Value};
use support::script::{anyone, planner};
use support::{openai_config, Serve};

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// The planner's reply: a plan with every field of DESIGN §14; each step proven by a check.
fn judged_plan() -> Reply {
    let plan = json!({
        "title": "Greeting file",
        "summary": "hello.txt greets, checked",
        "approach": "Write the file with the shell, then prove it with grep.",
        "alternatives": ["A Python script"],
        "risks": ["The file may already exist"],
        "files": {"create": ["hello.txt"], "modify": []},
        "tests": ["grep for the greeting"],
        "complexity": "low",
        "steps": [
            {"action": "Write hello.txt", "expected": "the file exists",
             "files": ["hello.txt"], "check": "test -f hello.txt"},
            {"action": "Prove the greeting", "expected": "it says hello",
             "depends_on": [1], "check": "grep -q hello hello.txt"},
            {"action": "Report", "expected": "the user knows", "depends_on": [2, 5],
             "check": "true"}
        ],
        "libraries": [],
        "sandbox": {"policy": "create", "notes": "nothing to install"}
    });
    Reply::text(&format!("The plan.\n\n```plan\n{plan}\n```"))
}

/// Tool results the request carried, oldest first.
fn tool_results(request: &RecordedRequest) -> Vec<String> {
    let messages = request.body["messages"].as_array().cloned().unwrap_or_default();
    let results = messages.iter().filter(|m| m["role"] == "tool");
    results.map(|m| m["content"].as_str().unwrap_or_default().to_owned()).collect()
}

fn tool_names(request: &RecordedRequest) -> Vec<String> {
    let tools = request.body["tools"].as_array().cloned().unwrap_or_default();
    tools.iter().map(|t| t["function"]["name"].as_str().unwrap_or_default().to_owned()).collect()
}

fn system_prompt(request: &RecordedRequest) -> String {
    request.body["messages"][0]["content"].as_str().unwrap_or_default().to_owned()
}

/// The executor's first turn: its status, a refused start, the planned check failing then
/// passing, another command for step 2 (a change that waits).
fn first_turn() -> Vec<Reply> {
    vec![
        call("plan_status", json!({})),
        call("turn_plan", json!({"op": "start", "id": 2})),
        call("turn_plan", json!({"op": "done", "id": 1})),
        call("mcp_code-sandbox_run_command", json!({"command": "echo hello > hello.txt"})),
        call("turn_plan", json!({"op": "done", "id": 1, "outcome": "written"})),
        call(
            "turn_plan",
            json!({"op": "done", "id": 2, "outcome": "grep is enough", "gate": {"command": "grep hello hello.txt"}}),
        ),
        Reply::text("Step 2 waits for your answer."),
    ]
}

#[tokio::test(flavor = "multi_thread")]
async fn the_planned_checks_prove_the_tasks_and_the_plan_binds_the_executor() {
    let workspace = tempfile::tempdir().unwrap();
    let mut executor = first_turn();
    executor.extend([
        call("turn_plan", json!({"op": "done", "id": 2})),
        call("turn_plan", json!({"op": "done", "id": 3, "outcome": "reported"})),
        Reply::text("The greeting is written and proven."),
    ]);
    let script =
        Script::new().route(planner(), [judged_plan(), judged_plan()]).route(anyone(), executor);
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let chat = json!({"workspace": workspace.path(), "save_plans": true});
    let id = serve.create_chat(chat).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Greet"})).await;
    events.wait_for_phase("awaiting_approval").await;

    check_the_card(&serve.chat(&id).await["state"]["plan"]);
    let (status, _) = serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await;
    assert_eq!(status, 202);
    events.wait_for_phase("idle").await;
    let requests = provider.requests();
    assert!(tool_names(&requests[0]).contains(&"plan_status".to_owned()), "the planner's tools");
    assert!(tool_names(&requests[1]).contains(&"plan_status".to_owned()), "the executor's tools");
    check_the_first_turn(&tool_results(requests.last().unwrap()), workspace.path());

    let (_, changes) = serve.get(&format!("/v1/chats/{id}/plan/changes")).await;
    let change = &changes["changes"][0];
    assert_eq!(
        (change["kind"].clone(), change["task"].clone(), change["status"].clone()),
        (json!("check"), json!(2), json!("pending"))
    );
    assert_eq!(
        (change["new_check"].clone(), change["old_check"].clone()),
        (json!("grep hello hello.txt"), json!("grep -q hello hello.txt"))
    );
    let cid = change["id"].as_str().unwrap();
    let url = format!("/v1/chats/{id}/plan/changes/{cid}/approve");
    assert_eq!(serve.post(&url, json!(null)).await.0, 202);
    let record = events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;
    let results = tool_results(provider.requests().last().unwrap());
    let proven = results.iter().find(|r| r.contains("`grep hello hello.txt`: exit code 0"));
    assert!(proven.is_some(), "the approved command proved step 2: {results:#?}");
    assert!(results.iter().any(|r| r.contains("Preflight ran the gate `true`")), "{results:#?}");
    assert_eq!(record["completion"]["adherence"]["done_as_planned"], 3, "{record}");

    // The next planning in this workspace reads the finished plan's outcome records.
    let next = serve.create_chat(json!({"workspace": workspace.path(), "save_plans": false})).await;
    let mut events = serve.events(&next).await;
    serve.post(&format!("/v1/chats/{next}/messages"), json!({"content": "Again"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let prompt = system_prompt(provider.requests().last().unwrap());
    assert!(prompt.contains("# What earlier plans in this workspace found"), "{prompt}");
    assert!(prompt.contains("task 1 “Write hello.txt”"), "{prompt}");
    assert!(prompt.contains("worked: written"), "{prompt}");
}

/// The pending plan as the card draws it: every field kept, the bad dependency dropped
/// with a note, `summary` read as the aim.
fn check_the_card(plan: &Value) {
    assert_eq!(plan["aim"], "hello.txt greets, checked");
    assert_eq!(plan["approach"], "Write the file with the shell, then prove it with grep.");
    assert_eq!(plan["alternatives"], json!(["A Python script"]));
    assert_eq!(plan["risks"], json!(["The file may already exist"]));
    assert_eq!(plan["planned_files"]["create"], json!(["hello.txt"]));
    assert_eq!(
        (plan["tests"].clone(), plan["complexity"].clone()),
        (json!(["grep for the greeting"]), json!("low"))
    );
    let steps = plan["steps"].as_array().unwrap();
    let checks: Vec<&str> = steps.iter().map(|s| s["check"].as_str().unwrap()).collect();
    assert_eq!(checks, ["test -f hello.txt", "grep -q hello hello.txt", "true"]);
    assert_eq!(
        (steps[1]["depends_on"].clone(), steps[2]["depends_on"].clone()),
        (json!([1]), json!([2]))
    );
    let notes = plan["notes"].to_string();
    assert!(notes.contains("depends_on 5"), "{notes}");
}

fn check_the_first_turn(results: &[String], workspace: &std::path::Path) {
    assert!(results[0].contains("\"mode\": \"executing\""), "{}", results[0]);
    assert!(results[0].contains("\"active\": \"1 Write hello.txt\""), "{}", results[0]);
    assert!(
        results[1].contains("task 2 cannot start yet: it depends on task 1 “Write hello.txt”"),
        "{}",
        results[1]
    );
    assert!(
        results[2]
            .contains("Preflight ran `test -f hello.txt` in the sandbox and it exited with 1"),
        "the planned check ran and refused the done: {}",
        results[2]
    );
    assert!(workspace.join("hello.txt").is_file(), "{}", results[3]);
    assert!(
        results[4].contains("Preflight ran the gate `test -f hello.txt`: exit code 0"),
        "{}",
        results[4]
    );
    assert!(results[5].contains("waits for the user's answer"), "{}", results[5]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scope_keeps_planning_reads_inside_it_and_a_bad_scope_changes_nothing() {
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir(workspace.path().join("src")).unwrap();
    std::fs::write(workspace.path().join("src/a.txt"), "inside the scope").unwrap();
    std::fs::write(workspace.path().join("secret.txt"), "outside the scope").unwrap();
    let planner_replies = [
        call("mcp_filesystem_read_text_file", json!({"path": "secret.txt"})),
        call("mcp_filesystem_read_text_file", json!({"path": "src/a.txt"})),
        support::script::plan("Scoped", &["Read", "Write", "Check"]),
    ];
    let script = Script::new().route(planner(), planner_replies).route(
        anyone(),
        [
            call("turn_plan", json!({"op": "done", "id": 1})),
            call("turn_plan", json!({"op": "done", "id": 2})),
            call("turn_plan", json!({"op": "done", "id": 3})),
            Reply::text("Done."),
            call("turn_plan", json!({"op": "init", "tasks": ["Read", "Write"]})),
            Reply::text("Fixed."),
        ],
    );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    let ws = workspace.path().to_str().unwrap();

    let outside = json!({"workspace": ws, "scope": ["../"]});
    let (status, body) = serve.post("/v1/chats", outside).await;
    assert_eq!((status, body["error"]["code"].clone()), (400, json!("ERR_BAD_REQUEST")), "{body}");
    let id = serve.create_chat(json!({"workspace": ws, "save_plans": false})).await;
    let (status, body) =
        serve.request("PATCH", &format!("/v1/chats/{id}"), Some(json!({"scope": ["/etc"]}))).await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(serve.chat(&id).await["scope"], json!([]), "nothing changed");
    let scope = json!({"scope": [format!("{ws}/src/")]});
    let (status, chat) = serve.request("PATCH", &format!("/v1/chats/{id}"), Some(scope)).await;
    assert_eq!((status, chat["scope"].clone()), (200, json!(["src"])), "kept relative: {chat}");

    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Plan it"})).await;
    events.wait_for_phase("awaiting_approval").await;
    let requests = provider.requests();
    assert!(system_prompt(&requests[0]).contains("- Planning scope: src."), "the planner is told");
    let results = tool_results(requests.last().unwrap());
    assert!(
        results[0].contains("\"secret.txt\" is outside this chat's planning scope (src)"),
        "{results:#?}"
    );
    assert!(!results[0].contains("outside the scope\n") && results[1].contains("inside the scope"));

    // After the plan: the executor's own plan of two tasks is refused, with why.
    assert_eq!(serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await.0, 202);
    events.wait_for_phase("idle").await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Quick fix"})).await;
    events.wait_for_phase("executing").await;
    events.wait_for_phase("idle").await;
    let refused = tool_results(provider.requests().last().unwrap()).pop().unwrap();
    assert!(refused.contains("plan only work of 3 or more distinct steps"), "{refused}");
    let (_, panel) = serve.get(&format!("/v1/chats/{id}/plan")).await;
    assert_eq!(panel["tasks"], json!([]), "no list was made");
}
