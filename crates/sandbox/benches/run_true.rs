//! Bench: `run_command {"command": "true"}` through rmcp's client, confined and unconfined,
//! against a bare `sh -c true` and a bare `bwrap … sh -c true`. Prints p50s and the ratios
//! of the goals (confinement adds ≤ 15 ms p50; the MCP path ≤ 1.3× bare bubblewrap).
//! The four are measured in turn within each round, so a loaded machine weighs on all alike.
//! Run: `cargo bench -p preflight-sandbox --bench run_true` (ITERATIONS=N to change 100).

use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;
type Client = RunningService<RoleClient, ()>;

fn main() -> Result<(), Error> {
    let iterations: usize =
        std::env::var("ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path().canonicalize()?;
    let confined = runtime.block_on(start(&ws, "bubblewrap"))?;
    let unconfined = runtime.block_on(start(&ws, "none"))?;
    let bwrap_words = bwrap_args(&ws);
    let mut times: [Vec<Duration>; 4] = Default::default();
    for round in 0..iterations + 5 {
        let measured = [
            timed(|| runtime.block_on(run_true(&confined)))?,
            timed(|| runtime.block_on(run_true(&unconfined)))?,
            timed(|| {
                spawn(
                    Command::new("bwrap").args(&bwrap_words).args(["--", "/bin/sh", "-c", "true"]),
                )
            })?,
            timed(|| spawn(Command::new("/bin/sh").args(["-c", "true"])))?,
        ];
        // The first rounds warm up (the first call creates the venv).
        if round >= 5 {
            measured.iter().zip(times.iter_mut()).for_each(|(t, all)| all.push(*t));
        }
    }
    runtime.block_on(async {
        let _ = confined.cancel().await;
        let _ = unconfined.cancel().await;
    });
    report(iterations, times.map(median));
    Ok(())
}

fn report(iterations: usize, [confined, unconfined, bare_bwrap, bare_sh]: [Duration; 4]) {
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("run_command `true`, {iterations} rounds, p50:");
    println!("  MCP confined (bubblewrap + cgroups) {:8.2} ms", ms(confined));
    println!("  MCP unconfined (cgroups only)       {:8.2} ms", ms(unconfined));
    println!("  bare bwrap … sh -c true             {:8.2} ms", ms(bare_bwrap));
    println!("  bare sh -c true                     {:8.2} ms", ms(bare_sh));
    println!(
        "confinement adds (confined - unconfined): {:.2} ms (goal <= 15 ms)",
        ms(confined) - ms(unconfined)
    );
    println!("MCP confined / bare bwrap: {:.2}x (goal <= 1.3x)", ms(confined) / ms(bare_bwrap));
    println!("MCP unconfined / bare sh: {:.2}x", ms(unconfined) / ms(bare_sh));
}

async fn start(workspace: &Path, mode: &str) -> Result<Client, Error> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_preflight-sandbox"));
    command.arg("--workspace").arg(workspace).args(["--confinement", mode]);
    Ok(().serve(TokioChildProcess::new(command)?).await?)
}

async fn run_true(client: &Client) -> Result<(), Error> {
    let mut args = serde_json::Map::new();
    args.insert("command".into(), "true".into());
    let result =
        client.call_tool(CallToolRequestParams::new("run_command").with_arguments(args)).await?;
    match result.structured_content.as_ref().map(|s| s["exit_code"].clone()) {
        Some(code) if code == 0 => Ok(()),
        other => Err(format!("run_command true gave {other:?}").into()),
    }
}

fn bwrap_args(workspace: &Path) -> Vec<String> {
    let ws = workspace.display().to_string();
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let words = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--tmpfs",
        &home,
    ];
    let mut args: Vec<String> = words.iter().map(|w| w.to_string()).collect();
    args.extend(
        ["--bind", &ws, &ws, "--unshare-pid", "--die-with-parent", "--new-session", "--chdir", &ws]
            .map(String::from),
    );
    args
}

fn spawn(command: &mut Command) -> Result<(), Error> {
    let status =
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null()).status()?;
    if !status.success() {
        return Err(format!("{command:?} failed: {status}").into());
    }
    Ok(())
}

fn timed(once: impl FnOnce() -> Result<(), Error>) -> Result<Duration, Error> {
    let started = Instant::now();
    once()?;
    Ok(started.elapsed())
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
