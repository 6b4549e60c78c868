//! A tool call as a sentence a person reads ("Wrote textutils.py", "Listed src/", "Ran
//! python3 -m unittest", "Updated the task list"), never its JSON; and a finished call's
//! outcome ("exit 0 in 1.2 s", "failed: …"). The filesystem's and the code sandbox's tools
//! are known by their tool name, whatever their server is called; any other tool gets a
//! generic sentence from its names and its first argument. Paths read relative to the chat's
//! workspace. Pure.

use serde_json::{Map, Value};

use crate::locale::{fill, Words};
use crate::sanitize::one_line;

/// Characters of a value quoted in a sentence (a command, a pattern, an argument).
const QUOTED_CHARS: usize = 48;

/// How a finished call went, for its colour and its words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A command that ran: its exit code, and how long it took when the result says.
    Exited {
        code: i64,
        millis: Option<u64>,
    },
    Failed(String),
    Done,
}

/// The sentence of a call of `name` with `arguments` (the model's JSON text).
pub fn sentence(words: &Words, name: &str, arguments: &str, workspace: Option<&str>) -> String {
    let args = match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(args)) => args,
        _ => Map::new(),
    };
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    let path = |key: &str| relative(&text(key), workspace, false, words);
    let folder = |key: &str| relative(&text(key), workspace, true, words);
    let (template, values): (&str, Vec<(&str, String)>) = match known_tool(name) {
        Some("read_text_file" | "read_file" | "read_media_file") => {
            (words.tool_read, vec![("path", path("path"))])
        }
        Some("read_multiple_files") => {
            let count = args.get("paths").and_then(Value::as_array).map_or(0, Vec::len);
            (words.tool_read_many, vec![("n", count.to_string())])
        }
        Some("write_file") => (words.tool_wrote, vec![("path", path("path"))]),
        Some("edit_file") => (words.tool_edited, vec![("path", path("path"))]),
        Some("create_directory") => (words.tool_made_folder, vec![("path", folder("path"))]),
        Some("list_directory" | "list_directory_with_sizes") => {
            (words.tool_listed, vec![("path", folder("path"))])
        }
        Some("directory_tree") => (words.tool_tree, vec![("path", folder("path"))]),
        Some("move_file") => {
            (words.tool_moved, vec![("from", path("source")), ("to", path("destination"))])
        }
        Some("search_files") => (
            words.tool_searched,
            vec![("path", folder("path")), ("pattern", quoted(&text("pattern")))],
        ),
        Some("get_file_info") => (words.tool_info, vec![("path", path("path"))]),
        Some("list_allowed_directories") => (words.tool_allowed, vec![]),
        Some("run_command") => (words.tool_ran, vec![("command", quoted(&text("command")))]),
        Some("run_python") => (words.tool_python, vec![]),
        Some("install_packages") => (words.tool_installed, vec![("packages", list(&args))]),
        Some("sandbox_info") => (words.tool_sandbox, vec![]),
        _ if name == "turn_plan" => (words.tool_tasks, vec![]),
        _ if name == "fetch" => (words.tool_fetched, vec![("url", quoted(&text("url")))]),
        _ => return generic(words, name, &args),
    };
    let values: Vec<(&str, &dyn std::fmt::Display)> =
        values.iter().map(|(key, value)| (*key, value as &dyn std::fmt::Display)).collect();
    fill(template, &values)
}

/// The known tool a name ends with (`mcp_filesystem_write_file` → `write_file`).
fn known_tool(name: &str) -> Option<&'static str> {
    const KNOWN: &[&str] = &[
        "read_text_file",
        "read_media_file",
        "read_multiple_files",
        "read_file",
        "write_file",
        "edit_file",
        "create_directory",
        "list_directory_with_sizes",
        "list_directory",
        "directory_tree",
        "move_file",
        "search_files",
        "get_file_info",
        "list_allowed_directories",
        "run_command",
        "run_python",
        "install_packages",
        "sandbox_info",
    ];
    KNOWN.iter().copied().find(|tool| {
        name.strip_suffix(tool)
            .is_some_and(|server| server.starts_with("mcp_") || server.ends_with("__"))
    })
}

/// "Used echo (everything)": the tool's and its server's names as words, and its first
/// argument when it has one.
fn generic(words: &Words, name: &str, args: &Map<String, Value>) -> String {
    let bare = name.strip_prefix("mcp_").unwrap_or(name);
    let split = bare.split_once("__").or_else(|| match name.starts_with("mcp_") {
        true => bare.split_once('_'),
        false => None,
    });
    let (server, tool) = match split {
        Some((server, tool)) if !tool.is_empty() => (Some(server), tool),
        _ => (None, bare),
    };
    let humane = |text: &str| one_line(&text.replace(['_', '-'], " ")).trim().to_owned();
    let mut out = match server {
        Some(server) => fill(words.tool_used_on, &[("tool", &humane(tool)), ("server", &server)]),
        None => fill(words.tool_used, &[("tool", &humane(tool))]),
    };
    let first = args.iter().find_map(|(key, value)| match value {
        Value::String(text) => Some((key, text.clone())),
        Value::Number(_) | Value::Bool(_) => Some((key, value.to_string())),
        _ => None,
    });
    if let Some((key, value)) = first {
        out.push_str(&format!(": {} {}", humane(key), quoted(&value)));
    }
    out
}

/// `path` relative to the workspace (a folder with a slash after it); the workspace itself
/// in words.
fn relative(path: &str, workspace: Option<&str>, folder: bool, words: &Words) -> String {
    let path = one_line(path);
    let inside = workspace
        .map(|root| root.trim_end_matches('/'))
        .filter(|root| !root.is_empty())
        .and_then(|root| path.strip_prefix(root))
        .filter(|rest| rest.is_empty() || rest.starts_with('/'))
        .map(|rest| rest.trim_start_matches('/').to_owned());
    let shown = inside.unwrap_or_else(|| path.clone());
    let shown = shown.strip_prefix("./").unwrap_or(&shown).to_owned();
    if shown.is_empty() || shown == "." {
        return words.tool_workspace.to_owned();
    }
    if folder && !shown.ends_with('/') {
        return format!("{shown}/");
    }
    shown
}

/// A value on one line, cut at [`QUOTED_CHARS`] with `…`.
fn quoted(text: &str) -> String {
    let line = one_line(text);
    let mut out: String = line.chars().take(QUOTED_CHARS).collect();
    if line.chars().count() > QUOTED_CHARS {
        out.push('…');
    }
    out
}

fn list(args: &Map<String, Value>) -> String {
    let names = args.get("packages").and_then(Value::as_array).map(|packages| {
        packages.iter().filter_map(Value::as_str).map(one_line).collect::<Vec<_>>().join(", ")
    });
    quoted(&names.unwrap_or_default())
}

/// How a finished call went, read from its result: a command's exit code and duration
/// (the code sandbox's result ends with them as JSON), a failure's first line.
pub fn outcome(name: &str, result: &str, is_error: bool) -> Outcome {
    if is_error {
        let first = result.lines().find(|line| !line.trim().is_empty()).unwrap_or("");
        return Outcome::Failed(quoted(first));
    }
    if !matches!(known_tool(name), Some("run_command" | "run_python" | "install_packages")) {
        return Outcome::Done;
    }
    let structured = result
        .lines()
        .rev()
        .find_map(|line| serde_json::from_str::<Map<String, Value>>(line.trim()).ok())
        .filter(|object| object.contains_key("exit_code"));
    if let Some(object) = structured {
        let code = object.get("exit_code").and_then(Value::as_i64).unwrap_or(-1);
        let millis = object.get("duration_ms").and_then(Value::as_u64);
        return Outcome::Exited { code, millis };
    }
    let head = result.lines().find_map(|line| line.trim().strip_prefix("exit code "));
    match head.and_then(exit_line) {
        Some((code, millis)) => Outcome::Exited { code, millis },
        None => Outcome::Done,
    }
}

/// `0 in 1.2 s (timed out…)` after "exit code ": the code, and the time when it is said.
fn exit_line(rest: &str) -> Option<(i64, Option<u64>)> {
    let mut words = rest.split_whitespace();
    let code = words.next()?.parse().ok()?;
    let millis = match (words.next(), words.next(), words.next()) {
        (Some("in"), Some(number), Some("ms")) => number.parse::<u64>().ok(),
        (Some("in"), Some(number), Some("s")) => {
            number.parse::<f64>().ok().map(|seconds| (seconds * 1000.0).round() as u64)
        }
        _ => None,
    };
    Some((code, millis))
}

impl Outcome {
    /// The words after the sentence: " — exit 0 in 1.2 s", " — failed: …", or nothing.
    pub fn words(&self, words: &Words) -> String {
        match self {
            Outcome::Exited { code, millis: Some(millis) } => {
                let time = duration(words, *millis);
                format!(" — {}", fill(words.tool_exit_in, &[("code", code), ("time", &time)]))
            }
            Outcome::Exited { code, millis: None } => {
                format!(" — {}", fill(words.tool_exit, &[("code", code)]))
            }
            Outcome::Failed(why) => format!(" — {}: {why}", words.tool_failed),
            Outcome::Done => String::new(),
        }
    }

    /// A failure, or a command that exited with another code than 0.
    pub fn is_bad(&self) -> bool {
        matches!(self, Outcome::Failed(_))
            || matches!(self, Outcome::Exited { code, .. } if *code != 0)
    }
}

/// "1.2 s" (with the language's decimal mark), or "40 ms" under a tenth of a second.
fn duration(words: &Words, millis: u64) -> String {
    if millis < 100 {
        return fill(words.millis, &[("n", &millis)]);
    }
    let tenths = (millis + 50) / 100;
    let seconds = format!("{}{}{}", tenths / 10, words.decimal_mark, tenths % 10);
    fill(words.seconds, &[("n", &seconds)])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::locale::{EN, RU};

    #[test]
    fn calls_read_as_sentences_in_both_languages() {
        let root = Some("/home/u/shop");
        let cases: &[(&str, &str, &str, &str)] = &[
            (
                "mcp_filesystem_write_file",
                r#"{"path":"/home/u/shop/textutils.py","content":"x"}"#,
                "Wrote textutils.py",
                "Записан textutils.py",
            ),
            (
                "mcp_filesystem_read_text_file",
                r#"{"path":"README.md"}"#,
                "Read README.md",
                "Прочитан README.md",
            ),
            (
                "mcp_filesystem_list_directory",
                r#"{"path":"/home/u/shop/src"}"#,
                "Listed src/",
                "Просмотрено: src/",
            ),
            (
                "mcp_filesystem_list_directory",
                r#"{"path":"/home/u/shop"}"#,
                "Listed the workspace",
                "Просмотрено: рабочая папка",
            ),
            (
                "mcp_code-sandbox_run_command",
                r#"{"command":"python3 -m unittest"}"#,
                "Ran python3 -m unittest",
                "Выполнено: python3 -m unittest",
            ),
            (
                "turn_plan",
                r#"{"op":"done","id":1}"#,
                "Updated the task list",
                "Обновлён список задач",
            ),
            (
                "mcp_everything_echo",
                r#"{"message":"hello \"there\""}"#,
                "Used echo (everything): message hello \"there\"",
                "Вызван инструмент echo (everything): message hello \"there\"",
            ),
            (
                "mcp_weather_get-forecast",
                "{not json",
                "Used get forecast (weather)",
                "Вызван инструмент get forecast (weather)",
            ),
        ];
        for (name, args, english, russian) in cases {
            assert_eq!(sentence(&EN, name, args, root), *english, "{name} {args}");
            assert_eq!(sentence(&RU, name, args, root), *russian, "{name} {args}");
        }
        let long = format!(r#"{{"command":"{}"}}"#, "a".repeat(100));
        let ran = sentence(&EN, "mcp_code-sandbox_run_command", &long, root);
        assert!(ran.ends_with('…') && ran.chars().count() == "Ran ".len() + QUOTED_CHARS + 1);
    }

    #[test]
    fn a_commands_outcome_is_its_exit_code_and_time() {
        let result = "exit code 0\nstdout:\nok\nstderr:\n\n{\"exit_code\":0,\"stdout\":\"ok\",\"duration_ms\":1234}";
        let ran = outcome("mcp_code-sandbox_run_command", result, false);
        assert_eq!(ran, Outcome::Exited { code: 0, millis: Some(1234) });
        assert_eq!(ran.words(&EN), " — exit 0 in 1.2 s");
        assert_eq!(ran.words(&RU), " — код 0 за 1,2 с");
        assert!(!ran.is_bad());
        let timed =
            outcome("mcp_code-sandbox_run_command", "exit code 0 in 1.2 s\nstdout:\n", false);
        assert_eq!(timed, Outcome::Exited { code: 0, millis: Some(1200) });
        let quick =
            outcome("mcp_code-sandbox_run_command", "exit code 1 in 40 ms\nstdout:\n", false);
        assert_eq!(quick, Outcome::Exited { code: 1, millis: Some(40) });
        let failed = outcome("mcp_code-sandbox_run_command", "exit code 2\nstdout:\n", false);
        assert_eq!(failed.words(&EN), " — exit 2");
        assert!(failed.is_bad());
        let error = outcome("mcp_filesystem_read_text_file", "\nno such file: a.txt\nmore", true);
        assert_eq!(error.words(&EN), " — failed: no such file: a.txt");
        assert_eq!(outcome("mcp_filesystem_write_file", "Wrote to x", false), Outcome::Done);
    }
}
