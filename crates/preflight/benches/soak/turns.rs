//! What a soak turn asks of the engine: its kind (a fault or a plain piece of work), drawn
//! from a seeded generator, and the scripted model's replies for it.
//!
//! A working turn's replies start with the turn's task list (`turn_plan init`, ids 1…3), so
//! that a turn cut anywhere leaves open tasks whose stop the engine must record. The
//! replies after a fault are what the engine's retry gets; a turn that ends early leaves
//! the rest unused (the route is removed after the turn).

use preflight_testkit::{Answer, Reply};
use serde_json::{json, Value};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Kind {
    /// A chat's first turn: the planner's plan of one step (approved by the chat's
    /// `auto_approve`), the executor's `done` of it, an answer.
    Plan,
    /// A text answer, nothing else.
    Plain,
    /// Three tasks done through `turn_plan`, then an answer.
    Tasks,
    /// HTTP 500 first (the executor retries).
    Status500,
    /// HTTP 429 with `retry-after: 1` first.
    RateLimited,
    /// A stream cut mid-token.
    Cut,
    /// A stream that stalls (sends nothing more, keeps the connection open for as long as the
    /// client stays): the provider's idle timeout must end it.
    Stall,
    /// A tool call whose arguments are not JSON.
    Malformed,
    /// A slow MCP call (`everything`'s long-running operation) whose server the bench kills.
    McpKilled,
    /// `sleep 1000` in the code sandbox with a 2 s timeout.
    SandboxHang,
    /// `yes` in the code sandbox: a flood of output, stopped by the timeout, its output capped.
    SandboxFlood,
}

/// Weights out of 100, in the order of [`Kind::ALL`].
const WEIGHTS: [(Kind, u32); 10] = [
    (Kind::Plain, 22),
    (Kind::Tasks, 20),
    (Kind::Status500, 8),
    (Kind::RateLimited, 8),
    (Kind::Cut, 8),
    (Kind::Stall, 6),
    (Kind::Malformed, 8),
    (Kind::McpKilled, 6),
    (Kind::SandboxHang, 7),
    (Kind::SandboxFlood, 7),
];

impl Kind {
    /// The kind for a number drawn in 0..100.
    pub fn pick(draw: u32) -> Kind {
        let mut left = draw % 100;
        for (kind, weight) in WEIGHTS {
            if left < weight {
                return kind;
            }
            left -= weight;
        }
        Kind::Plain
    }

    pub fn is_fault(self) -> bool {
        !matches!(self, Kind::Plan | Kind::Plain | Kind::Tasks)
    }

    pub fn name(self) -> &'static str {
        match self {
            Kind::Plan => "planned first turn",
            Kind::Plain => "plain answer",
            Kind::Tasks => "task list work",
            Kind::Status500 => "HTTP 500",
            Kind::RateLimited => "HTTP 429 + retry-after",
            Kind::Cut => "stream cut mid-token",
            Kind::Stall => "stalled stream",
            Kind::Malformed => "malformed tool-call JSON",
            Kind::McpKilled => "MCP server killed mid-call",
            Kind::SandboxHang => "sandbox command hangs",
            Kind::SandboxFlood => "sandbox command floods",
        }
    }
}

/// The marker of turn `n` of chat `chat`, unique as a substring (`[soak 1 2]` is not in
/// `[soak 1 20]`): the user message carries it and the turn's route matches it.
pub fn marker(chat: usize, n: usize) -> String {
    format!("[soak {chat} {n}]")
}

fn call(name: &str, arguments: Value) -> Reply {
    Answer::new().tool_call(name, arguments).into()
}

fn init(marker: &str, titles: &[&str]) -> Reply {
    let tasks: Vec<String> = titles.iter().map(|t| format!("{marker} {t}")).collect();
    call("turn_plan", json!({"op": "init", "tasks": tasks}))
}

/// The outcome the script gives task `id` of the turn `marker` (checked in the stored list).
pub fn outcome(marker: &str, id: u32) -> String {
    format!("{marker} task {id} done")
}

fn done(marker: &str, id: u32) -> Reply {
    call("turn_plan", json!({"op": "done", "id": id, "outcome": outcome(marker, id)}))
}

fn run(command: &str) -> Reply {
    call("mcp_code-sandbox_run_command", json!({"command": command, "timeout_s": 2}))
}

/// The model's replies for one turn, in the order its requests get them.
pub fn replies(kind: Kind, marker: &str) -> Vec<Reply> {
    let answer = Reply::text(&format!("Turn {marker} is finished."));
    // `init` makes lists of 3 or more tasks only (the tracker's rule).
    let work = |middle: Vec<Reply>| {
        let mut replies = vec![init(marker, &["first", "second", "third"]), done(marker, 1)];
        replies.extend(middle);
        replies.extend([done(marker, 2), done(marker, 3), answer.clone()]);
        replies
    };
    let mut first = match kind {
        Kind::Plan => return vec![plan(marker), done(marker, 1), answer],
        Kind::Plain => return vec![answer],
        Kind::Tasks => return work(Vec::new()),
        Kind::Status500 => vec![Reply::status(500)],
        Kind::RateLimited => vec![Reply::rate_limited("1")],
        // Mid-turn, with tasks open: a stream that had sent text is not retried, so the turn
        // fails and its stop (`provider_error`) must be recorded.
        Kind::Cut => {
            return work(vec![Answer::new().words("A partial answer to be cu").cut().into()])
        }
        Kind::Stall => return work(vec![Answer::new().text("Thinking about ").stall().into()]),
        Kind::Malformed => {
            return work(vec![Answer::new()
                .raw_tool_call("turn_plan", "{\"op\": \"done\", \"id\": ")
                .into()])
        }
        Kind::McpKilled => {
            let slow = json!({"duration": 4, "steps": 4});
            return work(vec![call("mcp_everything_trigger-long-running-operation", slow)]);
        }
        Kind::SandboxHang => return work(vec![run("sleep 1000")]),
        Kind::SandboxFlood => return work(vec![run("yes 'soak flood line'")]),
    };
    first.extend(work(Vec::new()));
    first
}

/// The planner's reply: a `plan` fence of one step.
fn plan(marker: &str) -> Reply {
    let plan = json!({
        "title": format!("Soak {marker}"),
        "aim": "Keep the chat busy, checked",
        "steps": [{"action": format!("{marker} first"), "expected": "it is done"}],
        "libraries": [],
        "sandbox": {"policy": "create", "notes": "a scratch folder"}
    });
    Reply::text(&format!("Here is the plan.\n\n```plan\n{plan}\n```"))
}
