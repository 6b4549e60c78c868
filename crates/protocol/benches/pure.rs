//! Benchmarks of the engine's pure parts: a bench binary printing ns/op (no criterion).
//!
//! Run with `cargo bench -p preflight-protocol --bench pure`. Figures are for comparison
//! between runs on one machine, not thresholds.

use std::hint::black_box;
use std::time::{Duration, Instant};

use preflight_protocol::tasks::{NewTask, Operation, TaskList, MAX_TASKS};
use serde_json::json;

fn main() {
    bench_parser();
    bench_tracker();
}

/// A planner reply of about 10 KB: prose, a `<think>` block, then a plan fence whose JSON
/// carries the slips the parser repairs (trailing commas, a comment).
fn planner_reply_10kb() -> String {
    let mut reply =
        String::from("<think>\nThe user wants an export. Let me read the routes.\n</think>\n");
    reply.push_str(
        &"I read `src/routes.rs` and `src/db.rs`; exports are not implemented yet. ".repeat(20),
    );
    reply.push_str(
        "\n\n```plan\n{\n  // drafted after reading the routes\n  \"title\": \"CSV export\",\n",
    );
    reply.push_str("  \"aim\": \"Users download their data as CSV\",\n  \"steps\": [\n");
    let mut step = 0;
    while reply.len() < 9_000 {
        step += 1;
        reply.push_str(&format!(
            "    {{\"action\": \"Step {step}: add the export route and its handler in src/routes.rs\", \"expected\": \"curl /export/{step} answers 200 with a CSV body\"}},\n"
        ));
    }
    reply.push_str("  ],\n  \"libraries\": [{\"name\": \"csv\", \"purpose\": \"writing rows\", \"usage\": \"csv::Writer\"},],\n");
    reply
        .push_str("  \"sandbox\": {\"policy\": \"create\", \"notes\": \"sample data\"},\n}\n```\n");
    reply.push_str(&"Approve it and I will start. ".repeat(30));
    reply
}

/// The planner-reply parser on a 10 KB reply, against strict serde_json on the same JSON.
fn bench_parser() {
    let reply = planner_reply_10kb();
    println!("parser ({} byte planner reply):", reply.len());
    let budget = Duration::from_millis(800);
    let parsed = preflight_protocol::planner::parse_planner_reply(&reply);
    assert!(
        matches!(parsed.kind, preflight_protocol::planner::ReplyKind::Plan(_)),
        "the reply must parse"
    );
    let strict_json = serde_json::to_string(&parsed.to_json()["plan"]).unwrap();
    let strict = measure("serde_json::from_str of the plan (baseline)", budget, None, |_| {
        black_box(serde_json::from_str::<serde_json::Value>(black_box(&strict_json)).unwrap());
    });
    let ns = measure("parse_planner_reply (tolerant, normalised)", budget, Some(strict), |_| {
        black_box(preflight_protocol::planner::parse_planner_reply(black_box(&reply)));
    });
    println!("  {:<42} {:>9.1} MB/s", "parser throughput", reply.len() as f64 / ns * 1e3);
}

/// Runs `op` repeatedly for about `budget`, prints its rate and returns its ns/op.
/// With a `baseline` (ns/op) it also prints how many baselines one op costs.
fn measure(name: &str, budget: Duration, baseline: Option<f64>, mut op: impl FnMut(u64)) -> f64 {
    for warm_up in 0..1_000 {
        op(warm_up);
    }
    let start = Instant::now();
    let mut iterations = 0u64;
    while start.elapsed() < budget {
        for _ in 0..1_000 {
            op(iterations);
            iterations += 1;
        }
    }
    let ns_per_op = start.elapsed().as_nanos() as f64 / iterations as f64;
    let ratio =
        baseline.map_or(String::new(), |base| format!("  {:>5.1}× baseline", ns_per_op / base));
    println!("  {name:<42} {ns_per_op:>9.0} ns/op {:>11.0} ops/s{ratio}", 1e9 / ns_per_op);
    ns_per_op
}

/// The `turn_plan` tracker on a full plan: 40 tasks in 4 phases, the real worst case.
fn bench_tracker() {
    println!("tracker (40-task plan, 4 phases):");
    let budget = Duration::from_millis(500);
    let full = full_plan(MAX_TASKS);
    let clone = measure("clone the list (baseline: apply copies it)", budget, None, |_| {
        black_box(black_box(&full).clone());
    });
    let base = Some(clone);
    let starts: Vec<Operation> = (1..=MAX_TASKS as u32).map(|id| Operation::Start { id }).collect();
    measure("apply start {id} (cycling ids)", budget, base, |i| {
        let op = &starts[i as usize % starts.len()];
        black_box(black_box(&full).apply(op).unwrap());
    });
    let done = Operation::Done { id: 20, outcome: Some("all in agent.rs".into()), gate: None };
    measure("apply done {id,outcome}", budget, base, |_| {
        black_box(black_box(&full).apply(&done).unwrap());
    });
    let almost_full = full_plan(MAX_TASKS - 1);
    let add = Operation::Add { tasks: vec![NewTask::new("one more check", Some("Phase 2"))] };
    measure("apply add {1 task, middle phase} to 39", budget, base, |_| {
        black_box(black_box(&almost_full).apply(&add).unwrap());
    });
    let missing = Operation::Start { id: 99 };
    measure("apply start {missing id} (refusal)", budget, base, |_| {
        black_box(black_box(&full).apply(&missing).unwrap_err());
    });
    let arguments = json!({"op": "done", "id": "7", "outcome": "checked"});
    measure("parse + apply a tool call (JSON value)", budget, base, |_| {
        black_box(black_box(&full).apply_tool_call(black_box(&arguments)).unwrap());
    });
    measure("render the tree", budget, base, |_| {
        black_box(black_box(&full).render());
    });
}

/// A plan of `count` tasks spread over four phases, with realistic title lengths.
fn full_plan(count: usize) -> TaskList {
    let tasks = (0..count)
        .map(|i| {
            let title = format!("task {i}: read the module, change the call sites, run the tests");
            NewTask::new(title, Some(&format!("phase {}", i % 4)))
        })
        .collect();
    TaskList::empty().apply(&Operation::Init { tasks }).expect("a plan within the limits")
}
