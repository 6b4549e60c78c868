//! The four tools of DESIGN §11: their definitions (names fixed, descriptions saying the
//! confinement), their arguments, and how a run becomes a tool result. No I/O here.

use crate::error::SandboxError;
use crate::run::RunOutcome;
use rmcp::model::{CallToolResult, ContentBlock, JsonObject, Tool, ToolAnnotations};
use serde::Deserialize;
use serde_json::{json, Value};
use std::time::Duration;

pub const DEFAULT_TIMEOUT_S: u64 = 120;
pub const MAX_TIMEOUT_S: u64 = 1800;

#[derive(Debug, Deserialize)]
pub struct RunCommandArgs {
    pub command: String,
    pub timeout_s: Option<u64>,
    pub cwd: Option<String>,
}

#[derive(Debug, Deserialize)]
pub struct RunPythonArgs {
    pub code: String,
    pub timeout_s: Option<u64>,
}

#[derive(Debug, Deserialize)]
pub struct InstallPackagesArgs {
    pub packages: Vec<String>,
    pub timeout_s: Option<u64>,
}

/// Parses a tool's arguments; a mismatch is a refusal the model can read.
pub fn parse_args<T: serde::de::DeserializeOwned>(
    args: Option<JsonObject>,
) -> Result<T, SandboxError> {
    let value = Value::Object(args.unwrap_or_default());
    serde_json::from_value(value).map_err(|e| SandboxError::Arguments(e.to_string()))
}

/// `timeout_s` or the default, refused outside 1..=1800 (never silently clamped).
pub fn timeout(timeout_s: Option<u64>) -> Result<Duration, SandboxError> {
    match timeout_s.unwrap_or(DEFAULT_TIMEOUT_S) {
        s @ 1..=MAX_TIMEOUT_S => Ok(Duration::from_secs(s)),
        seconds => Err(SandboxError::TimeoutRefused { seconds, max: MAX_TIMEOUT_S }),
    }
}

/// A pip requirement we pass on: a name, extras, version specifiers. Never an option
/// (`--index-url …`), a path or a URL.
pub fn check_package(spec: &str) -> Result<(), SandboxError> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || "._-[],<>=!~* ".contains(c);
    let starts_well = spec.chars().next().is_some_and(|c| c.is_ascii_alphanumeric());
    if starts_well && spec.chars().all(allowed) {
        Ok(())
    } else {
        Err(SandboxError::PackageRefused(spec.to_string()))
    }
}

/// The tool list, each description ending with the confinement in plain words.
pub fn definitions(confinement: &str, network: bool) -> Vec<Tool> {
    let timeout = json!({"type": "integer", "minimum": 1, "maximum": MAX_TIMEOUT_S,
        "description": format!("seconds before the whole process group is killed (default {DEFAULT_TIMEOUT_S})")});
    let run_command = schema(
        json!({
            "command": {"type": "string", "description": "run with /bin/sh -c in the workspace"},
            "timeout_s": timeout,
            "cwd": {"type": "string", "description": "folder relative to the workspace, inside it (default: the workspace)"}
        }),
        &["command"],
    );
    let run_python = schema(
        json!({
            "code": {"type": "string", "description": "Python source, written to a file and run with the venv's python"},
            "timeout_s": timeout
        }),
        &["code"],
    );
    let install = schema(
        json!({
            "packages": {"type": "array", "items": {"type": "string"}, "minItems": 1,
                "description": "pip requirements such as `requests` or `numpy>=1.26`"},
            "timeout_s": timeout
        }),
        &["packages"],
    );
    let said = |what: &str| format!("{what}\n\n{confinement}");
    vec![
        tool("run_command", said("Run a shell command in the workspace with the workspace's Python venv first on PATH. Returns the exit code, stdout and stderr (the last 64 KiB of each); a non-zero exit is a result."), run_command, network),
        tool("run_python", said("Run Python code with the workspace's venv (.sandbox/venv, created on first use) in the workspace. Returns the exit code, stdout and stderr."), run_python, network),
        tool("install_packages", said("pip install packages into the workspace's venv. The result names what was installed, with versions, or gives pip's error."), install, network),
        tool("sandbox_info", said("Describe the sandbox: Python version, venv path, installed packages and the confinement."), schema(json!({}), &[]), network),
    ]
}

fn schema(properties: Value, required: &[&str]) -> JsonObject {
    let mut object = JsonObject::new();
    object.insert("type".into(), json!("object"));
    object.insert("properties".into(), properties);
    if !required.is_empty() {
        object.insert("required".into(), json!(required));
    }
    object
}

/// Every tool changes the workspace or runs code: none is read-only.
fn tool(name: &'static str, description: String, input: JsonObject, network: bool) -> Tool {
    let annotations = ToolAnnotations::new()
        .read_only(false)
        .destructive(true)
        .idempotent(false)
        .open_world(network);
    Tool::new(name, description, input).with_annotations(annotations)
}

/// A run as a tool result: text (`exit code N`, then stdout and stderr) and the
/// structured `{exit_code, stdout, stderr, timed_out, truncated, duration_ms}`.
pub fn run_result(banner: Option<&str>, outcome: &RunOutcome, extra: &[String]) -> CallToolResult {
    let mut text = String::new();
    if let Some(banner) = banner {
        text.push_str(&format!("{banner}\n"));
    }
    text.push_str(&format!("exit code {}", outcome.exit_code));
    if outcome.timed_out {
        text.push_str(" (timed out: the whole process group was killed)");
    }
    text.push('\n');
    for note in outcome.limit_notes.iter().chain(&outcome.guard.notes()).chain(extra) {
        text.push_str(&format!("{note}\n"));
    }
    text.push_str(&format!("stdout:\n{}\n", outcome.stdout));
    text.push_str(&format!("stderr:\n{}\n", outcome.stderr));
    if outcome.truncated {
        text.push_str("(output truncated: only the last 64 KiB of each stream are kept)\n");
    }
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "exit_code": outcome.exit_code,
        "stdout": outcome.stdout,
        "stderr": outcome.stderr,
        "timed_out": outcome.timed_out,
        "truncated": outcome.truncated,
        "duration_ms": outcome.duration_ms,
    }));
    if let Some(Value::Object(object)) = result.structured_content.as_mut() {
        object.extend(outcome.guard.structured().into_iter().map(|(k, v)| (k.to_owned(), v)));
    }
    result
}

/// A refusal or failure the model should read (a tool error, `isError: true`).
pub fn refusal(banner: Option<&str>, error: &SandboxError) -> CallToolResult {
    let text = match banner {
        Some(banner) => format!("{banner}\n{error}"),
        None => error.to_string(),
    };
    CallToolResult::error(vec![ContentBlock::text(text)])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timeouts_and_packages_are_checked() {
        assert_eq!(timeout(None).unwrap(), Duration::from_secs(120));
        assert_eq!(timeout(Some(1800)).unwrap(), Duration::from_secs(1800));
        assert!(matches!(timeout(Some(0)), Err(SandboxError::TimeoutRefused { seconds: 0, .. })));
        assert!(matches!(
            timeout(Some(1801)),
            Err(SandboxError::TimeoutRefused { seconds: 1801, .. })
        ));
        for ok in ["six", "numpy>=1.26,<2", "requests[socks]==2.31.0", "zope.interface"] {
            assert!(check_package(ok).is_ok(), "{ok}");
        }
        for refused in
            ["", "--index-url=http://x", "-e .", "./local", "pkg @ https://x/y.whl", "a;b"]
        {
            assert!(check_package(refused).is_err(), "{refused}");
        }
    }

    #[test]
    fn tools_are_named_as_designed_and_none_is_read_only() {
        let tools = definitions("Confined by bubblewrap.", true);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["run_command", "run_python", "install_packages", "sandbox_info"]);
        for tool in tools {
            assert!(tool.description.unwrap().ends_with("Confined by bubblewrap."));
            assert_eq!(tool.annotations.unwrap().read_only_hint, Some(false));
        }
    }
}
