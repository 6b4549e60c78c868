//! `hooks.json`, read strictly: the shape Claude Code, Codex and VS Code share,
//! `{"hooks":{"EVENT":[{"matcher":"…","hooks":[{"type":"command","command":"…","timeout":60}]}]}}`.
//! Anything else (an unknown event or key, a bad regex, a type other than `command`, a
//! timeout that is not 1…3600 seconds) is an error naming the file and the place; a file with
//! an error runs none of its hooks.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use regex::Regex;
use serde_json::{Map, Value};

use super::event::HookEvent;

/// A hook's timeout when its entry gives none.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest timeout an entry may give, in seconds.
pub const MAX_TIMEOUT_S: u64 = 3600;

/// One command of a hooks file.
#[derive(Debug, Clone)]
pub struct HookCommand {
    pub command: String,
    pub timeout: Duration,
}

/// A group of commands and what they match.
#[derive(Debug, Clone)]
pub struct HookGroup {
    /// The matcher as written; empty for "all".
    pub matcher: String,
    /// The matcher anchored on the whole name; `None` matches every name.
    regex: Option<Regex>,
    pub commands: Vec<HookCommand>,
}

impl HookGroup {
    /// Whether the group runs for `subject` (the tool's name; the notification's kind).
    pub fn matches(&self, subject: &str) -> bool {
        self.regex.as_ref().is_none_or(|regex| regex.is_match(subject))
    }
}

/// A hooks file as read: each event's groups.
#[derive(Debug, Clone, Default)]
pub struct HookFile {
    pub events: BTreeMap<HookEvent, Vec<HookGroup>>,
}

impl HookFile {
    /// The commands `event` runs for `subject`.
    pub fn commands(&self, event: HookEvent, subject: &str) -> Vec<HookCommand> {
        let groups = self.events.get(&event).map(Vec::as_slice).unwrap_or_default();
        let matching = groups.iter().filter(|group| group.matches(subject));
        matching.flat_map(|group| group.commands.iter().cloned()).collect()
    }

    pub fn has(&self, event: HookEvent) -> bool {
        self.events.get(&event).is_some_and(|groups| groups.iter().any(|g| !g.commands.is_empty()))
    }
}

/// Why a hooks file runs none of its hooks, in words that name the file and the place.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {what}")]
pub struct HookFileError {
    pub file: String,
    pub what: String,
}

/// Reads `text`, the content of `file`.
pub fn parse_hooks(file: &Path, text: &str) -> Result<HookFile, HookFileError> {
    let fail = |what: String| HookFileError { file: file.display().to_string(), what };
    let value: Value =
        serde_json::from_str(text).map_err(|error| fail(format!("not JSON: {error}")))?;
    let top = object(&value, "the file").map_err(fail)?;
    only_keys(top, &["hooks"], "the file").map_err(fail)?;
    let Some(hooks) = top.get("hooks") else { return Ok(HookFile::default()) };
    let mut read = HookFile::default();
    for (name, groups) in object(hooks, "\"hooks\"").map_err(fail)? {
        let event = HookEvent::from_name(name).ok_or_else(|| {
            let known: Vec<&str> = HookEvent::ALL.iter().map(|event| event.name()).collect();
            fail(format!("unknown event \"{name}\" (known: {})", known.join(", ")))
        })?;
        let Value::Array(groups) = groups else {
            return Err(fail(format!("hooks.{name} must be a list of groups")));
        };
        let place = |index: usize| format!("hooks.{name}[{index}]");
        let parsed: Result<Vec<HookGroup>, String> = groups
            .iter()
            .enumerate()
            .map(|(index, group)| parse_group(group, &place(index)))
            .collect();
        read.events.insert(event, parsed.map_err(fail)?);
    }
    Ok(read)
}

fn parse_group(group: &Value, place: &str) -> Result<HookGroup, String> {
    let fields = object(group, place)?;
    only_keys(fields, &["matcher", "hooks"], place)?;
    let matcher = match fields.get("matcher") {
        None => String::new(),
        Some(Value::String(matcher)) => matcher.clone(),
        Some(_) => return Err(format!("{place}.matcher must be a string")),
    };
    let regex = match matcher.as_str() {
        "" | "*" => None,
        written => Some(Regex::new(&format!("^(?:{written})$")).map_err(|error| {
            format!("{place}.matcher \"{written}\" is not a regular expression: {error}")
        })?),
    };
    let Some(Value::Array(commands)) = fields.get("hooks") else {
        return Err(format!("{place}.hooks must be a list of commands"));
    };
    let commands: Result<Vec<HookCommand>, String> = commands
        .iter()
        .enumerate()
        .map(|(index, command)| parse_command(command, &format!("{place}.hooks[{index}]")))
        .collect();
    Ok(HookGroup { matcher, regex, commands: commands? })
}

fn parse_command(command: &Value, place: &str) -> Result<HookCommand, String> {
    let fields = object(command, place)?;
    only_keys(fields, &["type", "command", "timeout"], place)?;
    match fields.get("type") {
        Some(Value::String(kind)) if kind == "command" => {}
        Some(Value::String(kind)) => {
            return Err(format!("{place}.type is \"{kind}\": only \"command\" hooks run here"))
        }
        _ => return Err(format!("{place}.type must be \"command\"")),
    }
    let text = match fields.get("command") {
        Some(Value::String(text)) if !text.trim().is_empty() => text.clone(),
        _ => return Err(format!("{place}.command must be a command line, not blank")),
    };
    let timeout = match fields.get("timeout") {
        None => DEFAULT_TIMEOUT,
        Some(value) => match value.as_u64() {
            Some(seconds @ 1..=MAX_TIMEOUT_S) => Duration::from_secs(seconds),
            _ => {
                return Err(format!(
                "{place}.timeout is {value}: a whole number of seconds from 1 to {MAX_TIMEOUT_S}"
            ))
            }
        },
    };
    Ok(HookCommand { command: text, timeout })
}

fn object<'v>(value: &'v Value, place: &str) -> Result<&'v Map<String, Value>, String> {
    value.as_object().ok_or_else(|| format!("{place} must be a JSON object"))
}

fn only_keys(fields: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), String> {
    match fields.keys().find(|key| !known.contains(&key.as_str())) {
        Some(key) => {
            Err(format!("{place} has an unknown key \"{key}\" (known: {})", known.join(", ")))
        }
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<HookFile, String> {
        parse_hooks(Path::new("/h/hooks.json"), text).map_err(|error| error.to_string())
    }

    #[test]
    fn the_shared_shape_reads_and_matchers_match_whole_names() {
        let file = read(
            r#"{"hooks":{"PreToolUse":[{"matcher":"write_file|edit_.*","hooks":[{"type":"command","command":"a","timeout":5}]},
               {"hooks":[{"type":"command","command":"b"}]}],"Stop":[{"matcher":"*","hooks":[]}]}}"#,
        )
        .unwrap();
        let names = |subject| -> Vec<String> {
            file.commands(HookEvent::PreToolUse, subject).into_iter().map(|c| c.command).collect()
        };
        assert_eq!(names("write_file"), ["a", "b"]);
        assert_eq!(names("edit_file"), ["a", "b"]);
        assert_eq!(names("rewrite_file"), ["b"], "the matcher is anchored on the whole name");
        let timeouts: Vec<u64> = file
            .commands(HookEvent::PreToolUse, "edit_x")
            .iter()
            .map(|c| c.timeout.as_secs())
            .collect();
        assert_eq!(timeouts, [5, 60]);
        assert!(!file.has(HookEvent::Stop), "a group without commands runs nothing");
        assert!(read("{}").unwrap().events.is_empty());
    }

    #[test]
    fn each_mistake_is_named_with_the_file_and_its_place() {
        let cases = [
            (r#"{"hooks":{"BeforeTool":[]}}"#, "unknown event \"BeforeTool\""),
            (
                r#"{"hooks":{"Stop":[{"matcher":"(","hooks":[]}]}}"#,
                "hooks.Stop[0].matcher \"(\" is not a regular expression",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[{"type":"prompt","command":"x"}]}]}}"#,
                "hooks.Stop[0].hooks[0].type is \"prompt\"",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":0}]}]}}"#,
                "hooks.Stop[0].hooks[0].timeout is 0",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"x","timeout":"5"}]}]}}"#,
                "timeout is \"5\"",
            ),
            (
                r#"{"hooks":{"Stop":[{"hooks":[{"type":"command","command":" "}]}]}}"#,
                "command must be a command line",
            ),
            (r#"{"hooks":{"Stop":[{"hook":[]}]}}"#, "unknown key \"hook\""),
            (r#"{"hooks":[]}"#, "\"hooks\" must be a JSON object"),
            ("{", "not JSON"),
        ];
        for (text, expected) in cases {
            let error = read(text).unwrap_err();
            assert!(error.starts_with("/h/hooks.json: "), "{error}");
            assert!(error.contains(expected), "{text}: {error}");
        }
    }
}
