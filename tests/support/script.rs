//! Scripted model replies in the shapes a planner and an executor give.

use preflight_testkit::{Answer, Matcher, Reply, Script};
use serde_json::{json, Value};

/// Planner requests: their system prompt names the `plan-questions` fence (the executor's
/// never does).
pub fn planner() -> Matcher {
    Matcher::system_contains("plan-questions")
}

/// Any request (the executor's, once the planner's route is listed first).
pub fn anyone() -> Matcher {
    Matcher::default()
}

/// A planner reply ending with a `plan-questions` fence.
pub fn questions(items: &[(&str, &str, [&str; 3])]) -> Reply {
    let questions: Vec<Value> = items
        .iter()
        .map(|(id, question, options)| json!({"id": id, "question": question, "options": options}))
        .collect();
    Reply::text(&format!(
        "A few questions first.\n\n```plan-questions\n{}\n```",
        json!({"questions": questions})
    ))
}

/// A planner reply ending with a `plan` fence whose steps are `steps`.
pub fn plan(title: &str, steps: &[&str]) -> Reply {
    let steps: Vec<Value> = steps
        .iter()
        .map(|action| json!({"action": action, "expected": format!("{action} is done")}))
        .collect();
    let plan = json!({
        "title": title,
        "aim": format!("{title}, checked"),
        "steps": steps,
        "libraries": [{"name": "csv", "purpose": "write rows", "usage": "csv::Writer"}],
        "sandbox": {"policy": "create", "notes": "sample data"}
    });
    Reply::text(&format!("Here is the plan.\n\n```plan\n{plan}\n```"))
}

/// An executor reply that calls `name` with `arguments`.
pub fn tool(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

/// An executor reply that runs `command` in the code sandbox.
pub fn run(command: &str) -> Reply {
    tool("mcp_code-sandbox_run_command", json!({ "command": command }))
}

/// An executor reply that closes task `id` with the outcome "step N done".
pub fn done(id: u32) -> Reply {
    tool("turn_plan", json!({"op": "done", "id": id, "outcome": format!("step {id} done")}))
}

/// A three-task plan and its run over a folder holding `a.txt`, `b.txt` and `gone.txt`: task 1
/// extends a.txt, task 2 replaces gone.txt by c.txt, task 3 extends b.txt.
pub fn three_edits() -> Script {
    let steps = ["Extend a.txt", "Replace gone.txt by c.txt", "Extend b.txt"];
    Script::new().route(planner(), [plan("Three edits", &steps)]).route(
        anyone(),
        [
            run("printf 'one\\ntwo\\n' > a.txt"),
            done(1),
            run("printf 'new\\n' > c.txt && rm gone.txt"),
            done(2),
            run("printf 'keep\\nmore\\n' > b.txt"),
            done(3),
            Reply::text("All three done."),
        ],
    )
}
