//! Scripted model replies in the shapes a planner and an executor give.

use preflight_testkit::{Matcher, Reply};
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
