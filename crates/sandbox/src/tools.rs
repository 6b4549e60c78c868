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

/// What pip would take for a file rather than a name from the index (its archive suffixes),
/// and other files: a requirement naming one is refused.
const FILE_SUFFIXES: [&str; 16] = [
    "whl", "zip", "tar", "gz", "tgz", "bz2", "tbz", "xz", "txz", "lz", "tlz", "lzma", "egg", "py",
    "exe", "toml",
];

/// A pip requirement we pass on: a name from the index, optional `[extras]`, optional version
/// specifiers. Never an option (`--index-url …`), a file or an archive (`evil-1.0.tar.gz`,
/// which pip would build from the local file), a path or a URL; the error says why.
pub fn check_package(spec: &str) -> Result<(), SandboxError> {
    let refuse = |why| Err(SandboxError::PackageRefused { spec: spec.to_string(), why });
    if spec.trim().is_empty() {
        return refuse("it is empty");
    }
    if spec.starts_with(['-', '.']) {
        return refuse("it starts with `-` or `.` (an option or a path)");
    }
    if spec.contains(['/', '\\', ':', '@']) {
        return refuse("it holds `/`, `\\`, `:` or `@` (a path or a URL)");
    }
    let name_end = spec.find(|c: char| !(c.is_ascii_alphanumeric() || "._-".contains(c)));
    let (name, rest) = spec.split_at(name_end.unwrap_or(spec.len()));
    if !name.starts_with(|c: char| c.is_ascii_alphanumeric())
        || !name.ends_with(|c: char| c.is_ascii_alphanumeric())
    {
        return refuse("a name starts and ends with a letter or a digit");
    }
    let suffix = name.rsplit('.').next().unwrap_or_default().to_ascii_lowercase();
    if name.contains('.') && FILE_SUFFIXES.contains(&suffix.as_str()) {
        return refuse("it names a file (an archive, a wheel or a script)");
    }
    let rest = match rest.strip_prefix('[') {
        Some(extras) => match extras.split_once(']') {
            Some((inside, after)) if extras_are_names(inside) => after,
            _ => return refuse("its [extras] are not a list of names"),
        },
        None => rest,
    };
    let specifier_char = |c: char| c.is_ascii_alphanumeric() || "<>=!~,.*+ ".contains(c);
    let rest = rest.trim_start();
    if !rest.is_empty()
        && (!rest.starts_with(['<', '>', '=', '!', '~']) || !rest.chars().all(specifier_char))
    {
        return refuse("after the name only version specifiers such as `>=1.2,<2` may follow");
    }
    Ok(())
}

fn extras_are_names(inside: &str) -> bool {
    inside.split(',').map(str::trim).all(|extra| {
        !extra.is_empty() && extra.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
    })
}

/// The tool list, each description ending with the confinement in plain words; `pip` says
/// what pip's network reaches and `allow_sdists` whether source distributions are built.
pub fn definitions(confinement: &str, network: bool, allow_sdists: bool) -> Vec<Tool> {
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
    let builds = match allow_sdists {
        false => "Wheels only: a package without a wheel for this Python is not installed (no source distribution is built, so no package's setup.py runs).",
        true => "Wheels, and source distributions too (--allow-sdists): a package's setup.py may run, confined, during the install.",
    };
    let venv_note = "The venv (.sandbox) is read-only to commands: install packages with install_packages, not pip.";
    vec![
        tool("run_command", said(&format!("Run a shell command in the workspace with the workspace's Python venv first on PATH. Returns the exit code, stdout and stderr (the last 64 KiB of each); a non-zero exit is a result. {venv_note}")), run_command, network),
        tool("run_python", said(&format!("Run Python code with the workspace's venv (.sandbox/venv, created on first use) in the workspace. Returns the exit code, stdout and stderr. {venv_note}")), run_python, network),
        tool("install_packages", said(&format!("pip install packages by name from the package index into the workspace's venv (never a file, an archive, a path or a URL). {builds} The result names what was installed, with versions, or gives pip's error.")), install, network),
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

/// How long a run took, as its text says it: "40 ms", "1.2 s".
fn took(millis: u64) -> String {
    if millis < 1000 {
        format!("{millis} ms")
    } else {
        format!("{:.1} s", millis as f64 / 1000.0)
    }
}

/// A run as a tool result: text (`exit code N in T`, then stdout and stderr) and the
/// structured `{exit_code, stdout, stderr, timed_out, truncated, duration_ms}`.
pub fn run_result(banner: Option<&str>, outcome: &RunOutcome, extra: &[String]) -> CallToolResult {
    let mut text = String::new();
    if let Some(banner) = banner {
        text.push_str(&format!("{banner}\n"));
    }
    text.push_str(&format!("exit code {} in {}", outcome.exit_code, took(outcome.duration_ms)));
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
    }

    #[test]
    fn names_are_accepted_and_files_paths_and_urls_refused() {
        for ok in [
            "six",
            "numpy>=1.26,<2",
            "requests[socks]==2.31.0",
            "requests[socks, use-chardet]",
            "zope.interface",
            "Django~=4.2.1",
            "pkg==1.*",
            "a-b_c.d != 2.0",
        ] {
            assert!(check_package(ok).is_ok(), "{ok}");
        }
        let table = [
            ("", "empty"),
            ("--index-url=http://x", "starts with `-`"),
            ("-e .", "starts with `-`"),
            ("./local", "starts with `-` or `.`"),
            (".hidden", "starts with `-` or `.`"),
            ("evil-1.0.tar.gz", "names a file"),
            ("x.whl", "names a file"),
            ("a.zip", "names a file"),
            ("EVIL.TGZ", "names a file"),
            ("setup.py", "names a file"),
            ("dir/pkg", "a path or a URL"),
            ("dir\\pkg", "a path or a URL"),
            ("C:pkg", "a path or a URL"),
            ("file:evil", "a path or a URL"),
            ("pkg @ https://x/y.whl", "a path or a URL"),
            ("pkg@1", "a path or a URL"),
            ("a;b", "only version specifiers"),
            ("pkg; python_version<'3'", "only version specifiers"),
            ("pkg 1.0", "only version specifiers"),
            ("pkg[x", "[extras]"),
            ("pkg-", "starts and ends with a letter or a digit"),
        ];
        for (spec, why) in table {
            let error = check_package(spec).expect_err(spec).to_string();
            assert!(error.contains(why), "{spec:?}: {error}");
            assert!(error.contains("accepts requirements by name"), "{error}");
        }
    }

    #[test]
    fn tools_are_named_as_designed_and_none_is_read_only() {
        let tools = definitions("Confined by bubblewrap.", true, false);
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, ["run_command", "run_python", "install_packages", "sandbox_info"]);
        for tool in tools {
            assert!(tool.description.unwrap().ends_with("Confined by bubblewrap."));
            assert_eq!(tool.annotations.unwrap().read_only_hint, Some(false));
        }
        let wheels = definitions("", false, false)[2].description.clone().unwrap_or_default();
        assert!(wheels.contains("Wheels only"), "{wheels}");
        let sdists = definitions("", false, true)[2].description.clone().unwrap_or_default();
        assert!(sdists.contains("source distributions too"), "{sdists}");
    }
}
