//! The user's "Use this environment": `preflight-sandbox --adopt-venv`, which records a
//! workspace's unrecorded `.sandbox/venv` as the sandbox's when it is one an earlier Preflight
//! made, and changes nothing otherwise (crates/sandbox `adopt/`). Asked only at the user's
//! word; no tool of a model's reaches it.
//!
//! A leaf: it names nothing else of the engine.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

/// The longest an adoption may take: the sandbox compares pip with the interpreter's wheels.
const ADOPT_LIMIT: Duration = Duration::from_secs(180);

/// Why a venv was not adopted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdoptionError {
    /// The sandbox looked and refused: the venv is not an earlier Preflight's (its words).
    #[error("{0}")]
    Refused(String),
    /// The sandbox could not be asked.
    #[error("the code sandbox could not be asked to adopt the venv: {0}")]
    Failed(String),
}

/// Runs `program --adopt-venv --workspace W --state-dir S` with `env` (the variables the
/// supplied sandbox server gets) and reads its one JSON line.
pub async fn adopt_venv(
    program: &Path,
    env: &[(String, String)],
    workspace: &Path,
    state_dir: &Path,
) -> Result<(), AdoptionError> {
    let mut command = tokio::process::Command::new(program);
    command.arg("--adopt-venv").arg("--workspace").arg(workspace);
    command.arg("--state-dir").arg(state_dir);
    command.envs(env.iter().map(|(k, v)| (k, v))).kill_on_drop(true);
    command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let failed = |why: String| AdoptionError::Failed(why);
    let output = match tokio::time::timeout(ADOPT_LIMIT, command.output()).await {
        Err(_) => return Err(failed(format!("no answer in {} s", ADOPT_LIMIT.as_secs()))),
        Ok(Err(e)) => return Err(failed(format!("{} would not start: {e}", program.display()))),
        Ok(Ok(output)) => output,
    };
    read_answer(&output.stdout, &output.stderr)
}

/// `{"adopted": true}`, or `{"adopted": false, "reason": "…"}`.
fn read_answer(stdout: &[u8], stderr: &[u8]) -> Result<(), AdoptionError> {
    let answer: serde_json::Value = serde_json::from_slice(stdout).unwrap_or_default();
    match (answer["adopted"].as_bool(), answer["reason"].as_str()) {
        (Some(true), _) => Ok(()),
        (Some(false), Some(reason)) => Err(AdoptionError::Refused(reason.to_owned())),
        _ => {
            let said = String::from_utf8_lossy(stderr).trim().to_owned();
            Err(AdoptionError::Failed(if said.is_empty() {
                "no readable answer".into()
            } else {
                said
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_answer_is_read_strictly() {
        assert_eq!(read_answer(br#"{"adopted":true}"#, b""), Ok(()));
        assert_eq!(
            read_answer(br#"{"adopted":false,"reason":"bin/python is a script"}"#, b""),
            Err(AdoptionError::Refused("bin/python is a script".into()))
        );
        for nonsense in [&b""[..], b"yes", br#"{"adopted":"maybe"}"#, br#"{"adopted":false}"#] {
            assert!(matches!(read_answer(nonsense, b"usage"), Err(AdoptionError::Failed(_))));
        }
    }
}
