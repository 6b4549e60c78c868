//! Bench: `run_command {"command": "true"}` through rmcp's client, confined and unconfined,
//! against a bare `sh -c true` and a bare `bwrap … sh -c true`. Prints p50s and the ratios
//! of the goals (confinement adds ≤ 15 ms p50; the MCP path ≤ 1.3× bare bubblewrap).
//! Run: `cargo bench -p preflight-sandbox --bench run_true` (ITERATIONS=N to change 100).

use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use rmcp::ServiceExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let iterations: usize =
        std::env::var("ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(100);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build()?;
    let workspace = tempfile::tempdir()?;
    let ws = workspace.path().canonicalize()?;
    let confined = runtime.block_on(mcp_p50(&ws, "auto", iterations))?;
    let unconfined = runtime.block_on(mcp_p50(&ws, "none", iterations))?;
    let bare_sh = p50(iterations, || spawn(Command::new("/bin/sh").args(["-c", "true"])))?;
    let bare_bwrap = p50(iterations, || {
        spawn(Command::new("bwrap").args(bwrap_args(&ws)).args(["--", "/bin/sh", "-c", "true"]))
    })?;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("run_command `true`, {iterations} iterations, p50:");
    println!("  MCP confined (bubblewrap + cgroups) {:8.2} ms", ms(confined));
    println!("  MCP unconfined (cgroups only)       {:8.2} ms", ms(unconfined));
    println!("  bare bwrap … sh -c true             {:8.2} ms", ms(bare_bwrap));
    println!("  bare sh -c true                     {:8.2} ms", ms(bare_sh));
    println!(
        "confinement adds (confined - unconfined): {:.2} ms (goal <= 15 ms)",
        ms(confined) - ms(unconfined)
    );
    println!("MCP confined / bare bwrap: {:.2}x (goal <= 1.3x)", ms(confined) / ms(bare_bwrap));
    println!("bare bwrap / bare sh: {:.2}x", ms(bare_bwrap) / ms(bare_sh));
    Ok(())
}

/// p50 of `run_command true` against a server started with `--confinement MODE`.
async fn mcp_p50(workspace: &Path, mode: &str, iterations: usize) -> Result<Duration, Error> {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_preflight-sandbox"));
    command.arg("--workspace").arg(workspace).args(["--confinement", mode]);
    let client = ().serve(TokioChildProcess::new(command)?).await?;
    let mut args = serde_json::Map::new();
    args.insert("command".into(), "true".into());
    let call =
        || client.call_tool(CallToolRequestParams::new("run_command").with_arguments(args.clone()));
    // The first call creates the venv; a few more warm the caches.
    for _ in 0..5 {
        call().await?;
    }
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let started = Instant::now();
        let result = call().await?;
        times.push(started.elapsed());
        assert_eq!(
            result.structured_content.as_ref().map(|s| s["exit_code"].clone()),
            Some(0.into())
        );
    }
    client.cancel().await?;
    Ok(median(times))
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

fn p50(iterations: usize, mut once: impl FnMut() -> Result<(), Error>) -> Result<Duration, Error> {
    for _ in 0..5 {
        once()?;
    }
    let mut times = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let started = Instant::now();
        once()?;
        times.push(started.elapsed());
    }
    Ok(median(times))
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}
