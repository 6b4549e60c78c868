//! A run of the chat's code sandbox as the engine reads it (DESIGN §11): the structured
//! content of `run_command` (`{exit_code, stdout, stderr, timed_out, truncated,
//! duration_ms}`), and the evidence a gate records from it. Pure.

use rmcp::model::CallToolResult;
use serde::Deserialize;

/// The most characters of output a gate keeps as its evidence.
pub const EVIDENCE_CHARS: usize = 300;

/// Why the engine's own call of the chat's sandbox (a gate, `sandbox_info`) gave no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxCallError {
    /// The chat has no code sandbox, its server did not start, or the call failed (a
    /// timeout, a closed connection, the tool's own error).
    #[error("{0}")]
    Failed(String),
    /// The answer is not the structured result of a run.
    #[error("{0}")]
    NotARun(String),
}

/// One `run_command` as the sandbox reported it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct SandboxRun {
    pub exit_code: i64,
    pub stdout: String,
    pub stderr: String,
    pub timed_out: bool,
    pub truncated: bool,
    pub duration_ms: u64,
}

impl SandboxRun {
    /// The run in a tool result's `structuredContent`; a result without it (a server that is
    /// not Preflight's sandbox) is an error naming what is missing.
    pub fn from_result(result: &CallToolResult) -> Result<SandboxRun, SandboxCallError> {
        let structured = result.structured_content.clone().ok_or_else(|| {
            SandboxCallError::NotARun(
                "the code sandbox answered without the structured result of a run \
                 (exit_code, stdout, stderr, timed_out, truncated, duration_ms)"
                    .to_owned(),
            )
        })?;
        serde_json::from_value(structured).map_err(|error| {
            SandboxCallError::NotARun(format!("the code sandbox's result is not a run: {error}"))
        })
    }

    /// The last non-empty lines of the output (stdout, then stderr), at most
    /// [`EVIDENCE_CHARS`] characters; `(no output)` when the command printed nothing.
    pub fn evidence(&self) -> String {
        tail_lines(&format!("{}\n{}", self.stdout, self.stderr), EVIDENCE_CHARS)
            .unwrap_or_else(|| "(no output)".to_owned())
    }

    /// The output's tail for a model to mend a failing command: about `chars` characters.
    pub fn output_tail(&self, chars: usize) -> String {
        let mut tail = String::new();
        for (name, stream) in [("stdout", &self.stdout), ("stderr", &self.stderr)] {
            if let Some(lines) = tail_lines(stream, chars) {
                tail.push_str(&format!("{name}:\n{lines}\n"));
            }
        }
        if tail.is_empty() {
            tail.push_str("(no output)\n");
        }
        tail
    }
}

/// Whole lines from the end of `text`, skipping empty ones, within `chars` characters; a
/// single last line longer than that keeps its end. `None` when there is nothing to show.
fn tail_lines(text: &str, chars: usize) -> Option<String> {
    let mut kept: Vec<&str> = Vec::new();
    let mut used = 0;
    for line in text.lines().rev().map(str::trim_end).filter(|line| !line.trim().is_empty()) {
        let len = line.chars().count();
        if kept.is_empty() && len > chars {
            let skip = len - chars;
            return Some(line.chars().skip(skip).collect());
        }
        if used + len + usize::from(!kept.is_empty()) > chars {
            break;
        }
        used += len + usize::from(!kept.is_empty());
        kept.push(line);
    }
    if kept.is_empty() {
        return None;
    }
    kept.reverse();
    Some(kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(stdout: &str, stderr: &str) -> SandboxRun {
        SandboxRun {
            exit_code: 0,
            stdout: stdout.into(),
            stderr: stderr.into(),
            timed_out: false,
            truncated: false,
            duration_ms: 3,
        }
    }

    #[test]
    fn evidence_is_the_last_non_empty_lines_within_the_cap() {
        assert_eq!(run("a\nb\n\n", "").evidence(), "a\nb");
        assert_eq!(run("", "").evidence(), "(no output)");
        assert_eq!(run("12 passed\n", "warning: x\n").evidence(), "12 passed\nwarning: x");
        let many: String = (0..200).map(|i| format!("line {i}\n")).collect();
        let evidence = run(&many, "").evidence();
        assert!(evidence.chars().count() <= EVIDENCE_CHARS, "{evidence}");
        assert!(evidence.ends_with("line 199") && evidence.starts_with("line "), "{evidence}");
        let long = "x".repeat(1000) + "END";
        let evidence = run(&long, "").evidence();
        assert_eq!(evidence.chars().count(), EVIDENCE_CHARS);
        assert!(evidence.ends_with("END"));
    }

    #[test]
    fn a_result_without_a_run_is_an_error() {
        let mut result = CallToolResult::default();
        let error = SandboxRun::from_result(&result).unwrap_err().to_string();
        assert!(error.contains("without the structured"), "{error}");
        result.structured_content = Some(serde_json::json!({"exit_code": 0}));
        let error = SandboxRun::from_result(&result).unwrap_err().to_string();
        assert!(error.contains("is not a run"), "{error}");
        result.structured_content =
            Some(serde_json::json!({"exit_code": 2, "stdout": "", "stderr": "no\n",
            "timed_out": false, "truncated": false, "duration_ms": 7}));
        let got = SandboxRun::from_result(&result).unwrap();
        assert_eq!(got.exit_code, 2);
        assert_eq!(got.output_tail(100), "stderr:\nno\n");
    }
}
