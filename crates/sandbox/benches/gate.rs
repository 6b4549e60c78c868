//! Bench: a gate (`turn_plan done {gate:{command:"true"}}`) as the engine runs it — the
//! store's read, the run in the chat's sandbox through the MCP host, the record saved —
//! against the same command through the same host alone. Prints p50s and the time the gate
//! adds (the goal: ≤ 20 ms p50). The two are measured in turn within each round.
//! Run: `cargo bench -p preflight-sandbox --bench gate` (ITERATIONS=N to change 100).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use preflight_agent::{GateRunner, NoEvents, Tool, ToolContext, TurnPlanTool};
use preflight_mcp::{McpHost, McpOptions, SandboxCallError, SandboxDefault, SandboxRun};
use preflight_protocol::chat::ChatSettings;
use preflight_protocol::tasks::TaskList;
use preflight_store::Store;
use serde_json::json;
use tokio_util::sync::CancellationToken;

type Error = Box<dyn std::error::Error>;

struct HostGates {
    host: McpHost,
    workspace: PathBuf,
}

#[async_trait::async_trait]
impl GateRunner for HostGates {
    async fn run(
        &self,
        command: &str,
        cancel: &CancellationToken,
    ) -> Result<SandboxRun, SandboxCallError> {
        self.host.run_in_sandbox(&self.workspace, command, 300, cancel).await
    }
}

fn main() -> Result<(), Error> {
    let iterations: usize =
        std::env::var("ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let home = tempfile::tempdir()?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path().canonicalize()?;
    let (gate, alone) = runtime.block_on(measure(home.path(), &ws, iterations))?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("gate `true`, {iterations} rounds, p50:");
    println!("  turn_plan done with a gate (store + sandbox + record) {:8.2} ms", ms(gate));
    println!("  run_command `true` through the same host             {:8.2} ms", ms(alone));
    let added = gate.saturating_sub(alone);
    println!("  the gate adds {:.2} ms over the command itself (goal ≤ 20 ms)", ms(added));
    Ok(())
}

async fn measure(home: &Path, ws: &Path, iterations: usize) -> Result<(Duration, Duration), Error> {
    let mut config = McpOptions::new(home, home.join("no-filesystem-server"));
    let program = PathBuf::from(env!("CARGO_BIN_EXE_preflight-sandbox"));
    config.sandbox = Some(SandboxDefault {
        program,
        network: false,
        max_file_mib: None,
        confinement: Default::default(),
        allow_sdists: false,
        env: Vec::new(),
    });
    let host = McpHost::start(config)?;
    let store = Arc::new(Store::open(home.join("bench.db"))?);
    let settings = ChatSettings {
        title: "bench".into(),
        workspace: Some(ws.display().to_string()),
        plan_mode: true,
        auto_approve: false,
        save_plans: false,
        scope: Vec::new(),
    };
    let chat = store.create_chat(&settings)?;
    store.save_task_list(&chat.id, &TaskList::from_steps(["prove it", "then this"])?)?;
    let gates = HostGates { host: host.clone(), workspace: ws.to_path_buf() };
    let tool = TurnPlanTool::new(Arc::clone(&store)).with_gates(Arc::new(gates));
    let cancel = CancellationToken::new();
    let context = ToolContext { chat_id: &chat.id, cancel: &cancel, events: &NoEvents };
    let (mut gate, mut alone) = (Vec::new(), Vec::new());
    for round in 0..iterations + 5 {
        let started = Instant::now();
        let done =
            tool.call(json!({"op": "done", "id": 1, "gate": {"command": "true"}}), &context).await;
        let gate_time = started.elapsed();
        if done.is_error {
            return Err(format!("the gate was refused: {}", done.content).into());
        }
        tool.call(json!({"op": "start", "id": 1}), &context).await;
        let started = Instant::now();
        host.run_in_sandbox(ws, "true", 300, &cancel).await?;
        let alone_time = started.elapsed();
        // The first rounds warm up (the server starts on the first call).
        if round >= 5 {
            gate.push(gate_time);
            alone.push(alone_time);
        }
    }
    host.shutdown().await;
    Ok((median(gate), median(alone)))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
