//! Shared by the black-box tests: start the built `preflight-sandbox` binary on a fresh
//! workspace and talk to it with rmcp's client over stdio.
#![allow(dead_code)] // each test binary uses its own part

use anyhow::{anyhow, Context, Result};
use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock, Tool};
use rmcp::service::RunningService;
use rmcp::transport::TokioChildProcess;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A provider key the server is started with; no run may see it.
pub const PROVIDER_KEY: &str = "sk-test-preflight-must-not-leak";

pub struct Server {
    pub client: RunningService<RoleClient, ()>,
    pub pid: u32,
    pub workspace: TempDir,
    /// The server's `$HOME`, outside /tmp (so only the sandbox's tmpfs can hide it).
    pub home: TempDir,
}

/// Starts the server on a new workspace (under /tmp) with `args` and extra environment.
pub async fn start(args: &[&str], env: &[(&str, &str)]) -> Result<Server> {
    let workspace = tempfile::tempdir()?;
    start_in(workspace, args, env).await
}

pub async fn start_in(workspace: TempDir, args: &[&str], env: &[(&str, &str)]) -> Result<Server> {
    let homes = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/sandbox-test-homes");
    std::fs::create_dir_all(&homes)?;
    let home = tempfile::tempdir_in(&homes)?;
    std::fs::write(home.path().join("secret.txt"), "the user's private file")?;
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_preflight-sandbox"));
    command.arg("--workspace").arg(workspace.path()).args(args);
    // One record of the venvs made, for every server of every test (as the data folder's is
    // for every chat): a workspace served again finds its venv recorded.
    command.arg("--state-dir").arg(homes.join("../sandbox-test-state"));
    command.env("HOME", home.path());
    command.env("OPENAI_API_KEY", PROVIDER_KEY).env("ANTHROPIC_API_KEY", PROVIDER_KEY);
    command.envs(env.iter().copied());
    let transport = TokioChildProcess::new(command).context("spawning preflight-sandbox")?;
    let pid = transport.id().ok_or_else(|| anyhow!("no pid"))?;
    let client = ().serve(transport).await.context("initialize")?;
    Ok(Server { client, pid, workspace, home })
}

impl Server {
    pub fn workspace(&self) -> PathBuf {
        self.workspace.path().canonicalize().expect("workspace")
    }

    pub async fn call(&self, tool: &str, args: Value) -> Result<CallToolResult> {
        let Value::Object(args) = args else { return Err(anyhow!("arguments must be an object")) };
        let params = CallToolRequestParams::new(tool.to_string()).with_arguments(args);
        Ok(self.client.call_tool(params).await?)
    }

    /// `run_command` that must come back as a result (not a tool error).
    pub async fn run(&self, command: &str, timeout_s: u64) -> Result<Run> {
        let result = self
            .call("run_command", serde_json::json!({"command": command, "timeout_s": timeout_s}))
            .await?;
        Run::from(result)
    }

    pub async fn tools(&self) -> Result<Vec<Tool>> {
        Ok(self.client.list_all_tools().await?)
    }
}

/// A run's result, both halves.
#[derive(Debug)]
pub struct Run {
    pub text: String,
    pub exit_code: i64,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub truncated: bool,
    pub duration_ms: u64,
    pub structured: Value,
}

impl Run {
    pub fn from(result: CallToolResult) -> Result<Run> {
        let text = text(&result);
        if result.is_error == Some(true) {
            return Err(anyhow!("tool error: {text}"));
        }
        let s = result
            .structured_content
            .clone()
            .ok_or_else(|| anyhow!("no structuredContent: {text}"))?;
        Ok(Run {
            text,
            exit_code: s["exit_code"].as_i64().ok_or_else(|| anyhow!("exit_code"))?,
            stdout: s["stdout"].as_str().unwrap_or_default().to_string(),
            stderr: s["stderr"].as_str().unwrap_or_default().to_string(),
            timed_out: s["timed_out"].as_bool().ok_or_else(|| anyhow!("timed_out"))?,
            truncated: s["truncated"].as_bool().ok_or_else(|| anyhow!("truncated"))?,
            duration_ms: s["duration_ms"].as_u64().ok_or_else(|| anyhow!("duration_ms"))?,
            structured: s,
        })
    }
}

pub fn text(result: &CallToolResult) -> String {
    let texts = result.content.iter().filter_map(|c| match c {
        ContentBlock::Text(t) => Some(t.text.clone()),
        _ => None,
    });
    texts.collect::<Vec<_>>().join("\n")
}

/// Processes on this machine whose command line is exactly `words` (zombies have none).
pub fn processes_running(words: &[&str]) -> Vec<u32> {
    let wanted: Vec<u8> = words.iter().flat_map(|w| w.bytes().chain([0])).collect();
    let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read(format!("/proc/{pid}/cmdline")).is_ok_and(|c| c == wanted))
        .collect()
}

/// A number unlikely to be another test's, for `sleep N` markers.
pub fn marker() -> u64 {
    let nanos =
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().subsec_nanos();
    100_000 + (u64::from(nanos) ^ u64::from(std::process::id())) % 800_000
}

#[allow(unused_imports)]
pub use preflight_testkit::build_wheel;
