//! How long this session's tool calls took, timed from the engine's event that a call
//! started to the one with its result: a stored result does not say (the code sandbox's
//! duration is dropped before the model reads it), so "exit 0 in 1.2 s" is known for the
//! calls watched here, and a reopened chat says "exit 0". Keyed by the call's tool name and
//! its arguments as JSON.

use std::collections::HashMap;
use std::time::Instant;

#[derive(Debug, Default)]
pub struct ToolTimes {
    started: Vec<(String, Instant)>,
    took: HashMap<String, u64>,
}

impl ToolTimes {
    /// A call started now.
    pub fn start(&mut self, name: &str, arguments: &str) {
        self.started.push((key(name, arguments), Instant::now()));
    }

    /// A call's result came now: it took the time since the same call started.
    pub fn finish(&mut self, name: &str, arguments: &str) {
        let key = key(name, arguments);
        if let Some(at) = self.started.iter().rposition(|(started, _)| *started == key) {
            let (key, start) = self.started.remove(at);
            let millis = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
            self.took.insert(key, millis);
        }
    }

    /// How long the call of `name` with `arguments` took, when it was watched.
    pub fn millis(&self, name: &str, arguments: &str) -> Option<u64> {
        self.took.get(&key(name, arguments)).copied()
    }
}

/// The name and the arguments as compact JSON (the model's text may be spaced otherwise).
fn key(name: &str, arguments: &str) -> String {
    let compact = serde_json::from_str::<serde_json::Value>(arguments)
        .map(|value| value.to_string())
        .unwrap_or_else(|_| arguments.to_owned());
    format!("{name}\n{compact}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_timed_from_its_start_to_its_result_whatever_its_spacing() {
        let mut times = ToolTimes::default();
        times.start("run", r#"{"command": "ls"}"#);
        assert_eq!(times.millis("run", r#"{"command":"ls"}"#), None);
        times.finish("run", r#"{"command":"ls"}"#);
        assert!(times.millis("run", r#"{ "command" : "ls" }"#).is_some());
        assert_eq!(times.millis("run", r#"{"command":"pwd"}"#), None);
    }
}
