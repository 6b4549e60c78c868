//! Benchmarks of the MCP host against the real filesystem server: a bench binary printing
//! figures and ratios (no criterion).
//!
//! Run with `cargo bench -p preflight-mcp --bench mcp` (release). Two figures, each with
//! its baseline on the same machine in the same run:
//! 1. Profile switch: the host computing planning → execution → planning views over the
//!    servers already running, against a restart-based switch (kill the filesystem server,
//!    spawn it again, `initialize`, `tools/list`: the seed design). Goal: ≥ 100× faster.
//! 2. Tool-call latency: `get_file_info` and `list_directory` through `McpHost::call`,
//!    against a bare rmcp client on its own copy of the same server, calls interleaved
//!    (each round in a rotating order). A second bare client on a third copy gives the
//!    noise floor, and the median of per-round differences cancels the machine's drift.
//!    Goal: host ≤ 1.1× bare.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use preflight_mcp::{McpHost, McpOptions, Profile};
use rmcp::model::{CallToolRequestParams, JsonObject};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::json;
use tokio::process::{Child, Command};
use tokio_util::sync::CancellationToken;

const SWITCHES: usize = 3_000;
const RESTARTS: usize = 15;
const CALLS: usize = 2_000;
const WARMUP: usize = 100;

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let data = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        std::fs::write(workspace.path().join("README.md"), "# bench\n").unwrap();
        std::fs::create_dir(workspace.path().join("src")).unwrap();
        for i in 0..20 {
            std::fs::write(workspace.path().join(format!("src/file{i}.rs")), "fn f() {}\n")
                .unwrap();
        }
        let ws = std::fs::canonicalize(workspace.path()).unwrap();
        let host = McpHost::start(McpOptions::new(data.path(), fs_server())).unwrap();
        bench_profile_switch(&host, &ws).await;
        bench_tool_calls(&host, &ws).await;
        host.shutdown().await;
    });
}

fn fs_server() -> PathBuf {
    match std::env::var_os("PREFLIGHT_FS_SERVER") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
        )),
    }
}

async fn bench_profile_switch(host: &McpHost, ws: &Path) {
    host.profile_view(Profile::Planning, Some(ws)).await.unwrap();
    let mut host_switches = Vec::with_capacity(SWITCHES);
    let profiles = [Profile::Execution, Profile::Planning];
    for i in 0..SWITCHES {
        let started = Instant::now();
        let view = host.profile_view(profiles[i % 2], Some(ws)).await.unwrap();
        host_switches.push(started.elapsed());
        assert_eq!(view.tools.len(), if i % 2 == 0 { 14 } else { 8 });
    }
    let mut restarts = Vec::with_capacity(RESTARTS);
    let (mut client, mut child) = bare_client(ws).await;
    for _ in 0..RESTARTS {
        let started = Instant::now();
        let _ = client.cancel().await;
        child.kill().await.unwrap();
        (client, child) = bare_client(ws).await;
        let tools = client.peer().list_all_tools().await.unwrap();
        restarts.push(started.elapsed());
        assert_eq!(tools.len(), 14);
    }
    let _ = client.cancel().await;
    child.kill().await.unwrap();
    println!("profile switch (filesystem server, 14 tools → 8 and back):");
    let host_stats = report("  host: view over running servers", &mut host_switches);
    let restart_stats = report("  restart: kill + spawn + initialize + tools/list", &mut restarts);
    println!(
        "  ratio restart/host: {:.0}× at p50, {:.0}× in the mean (goal ≥ 100×)",
        ratio(restart_stats.p50, host_stats.p50),
        ratio(restart_stats.mean, host_stats.mean)
    );
}

async fn bench_tool_calls(host: &McpHost, ws: &Path) {
    // Two bare clients, each on its own copy of the server: the second measures how much two
    // server processes differ anyway (the noise floor of the host/bare ratio).
    let (bare, child) = bare_client(ws).await;
    let (control, control_child) = bare_client(ws).await;
    let cancel = CancellationToken::new();
    let cases = [
        ("get_file_info", json!({"path": ws.join("README.md")})),
        ("list_directory", json!({"path": ws.join("src")})),
    ];
    for (tool, args) in cases {
        let name = format!("mcp_filesystem_{tool}");
        let arguments = args.as_object().unwrap().clone();
        let mut samples =
            [Vec::with_capacity(CALLS), Vec::with_capacity(CALLS), Vec::with_capacity(CALLS)];
        for i in 0..WARMUP + CALLS {
            // The three take turns going first, so none gains from its place in the round.
            let mut times = [Duration::ZERO; 3];
            for k in 0..3 {
                let who = (i + k) % 3;
                times[who] = match who {
                    0 => {
                        let started = Instant::now();
                        let out = host
                            .call(Profile::Planning, Some(ws), &name, args.clone(), &cancel)
                            .await;
                        assert!(!out.is_error, "{out:?}");
                        started.elapsed()
                    }
                    1 => bare_call(&bare, tool, &arguments).await,
                    _ => bare_call(&control, tool, &arguments).await,
                };
            }
            if i >= WARMUP {
                (0..3).for_each(|who| samples[who].push(times[who]));
            }
        }
        println!("tool call {tool} ({CALLS} calls each, interleaved):");
        let host_extra = median_difference(&samples[0], &samples[1]);
        let control_extra = median_difference(&samples[2], &samples[1]);
        let [through_host, direct, second] = &mut samples;
        let host_stats = report("  host (McpHost::call)", through_host);
        let bare_stats = report("  bare rmcp client", direct);
        let control_stats = report("  bare rmcp client, second server", second);
        println!(
            "  ratio host/bare: {:.3}× at p50, {:.3}× at p99, {:.3}× in the mean (goal ≤ 1.1×)",
            ratio(host_stats.p50, bare_stats.p50),
            ratio(host_stats.p99, bare_stats.p99),
            ratio(host_stats.mean, bare_stats.mean)
        );
        println!(
            "  noise floor, bare/bare on two servers: {:.3}× at p50, {:.3}× in the mean",
            ratio(control_stats.p50, bare_stats.p50),
            ratio(control_stats.mean, bare_stats.mean)
        );
        // Calls of one round run back to back, so their difference cancels the machine's drift.
        println!(
            "  median paired difference: host − bare {:+.1} µs ({:.3}× of bare p50), second − bare {:+.1} µs",
            host_extra,
            1.0 + host_extra / (bare_stats.p50.as_secs_f64() * 1e6),
            control_extra
        );
    }
    for (client, mut process) in [(bare, child), (control, control_child)] {
        let _ = client.cancel().await;
        process.kill().await.unwrap();
    }
}

async fn bare_call(
    client: &RunningService<RoleClient, ()>,
    tool: &'static str,
    arguments: &JsonObject,
) -> Duration {
    let started = Instant::now();
    let params = CallToolRequestParams::new(tool).with_arguments(arguments.clone());
    let result = client.peer().call_tool(params).await.unwrap();
    let elapsed = started.elapsed();
    assert_ne!(result.is_error, Some(true));
    elapsed
}

/// The filesystem server spawned like the host does (node directly), with a bare rmcp
/// client on its stdio: `initialize` done when this returns.
async fn bare_client(ws: &Path) -> (RunningService<RoleClient, ()>, Child) {
    let mut child = Command::new("node")
        .arg(fs_server())
        .arg(ws)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (stdin, stdout) = (child.stdin.take().unwrap(), child.stdout.take().unwrap());
    let client = ().serve((stdout, stdin)).await.unwrap();
    (client, child)
}

struct Stats {
    mean: Duration,
    p50: Duration,
    p99: Duration,
}

fn report(label: &str, samples: &mut [Duration]) -> Stats {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q).round() as usize];
    let mean = samples.iter().sum::<Duration>() / samples.len() as u32;
    let stats = Stats { mean, p50: at(0.5), p99: at(0.99) };
    println!(
        "{label}: n={}, mean {}, p50 {}, p99 {}",
        samples.len(),
        human(stats.mean),
        human(stats.p50),
        human(stats.p99)
    );
    stats
}

/// The median of `a[i] − b[i]`, in µs.
fn median_difference(a: &[Duration], b: &[Duration]) -> f64 {
    let mut differences: Vec<f64> =
        a.iter().zip(b).map(|(x, y)| (x.as_secs_f64() - y.as_secs_f64()) * 1e6).collect();
    differences.sort_by(f64::total_cmp);
    differences[differences.len() / 2]
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64()
}

fn human(d: Duration) -> String {
    match d.as_nanos() {
        n if n < 10_000 => format!("{n} ns"),
        n if n < 10_000_000 => format!("{:.1} µs", n as f64 / 1e3),
        n => format!("{:.1} ms", n as f64 / 1e6),
    }
}
