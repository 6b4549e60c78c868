//! `scripted-provider SCRIPT.json [--requests FILE]`: serves a script (see `Script`) on
//! 127.0.0.1 until killed. Prints `listening on http://127.0.0.1:PORT` first; with
//! `--requests`, appends every request received to FILE as a JSON line.
//!
//! A script, for example (OpenAI clients use `http://127.0.0.1:PORT/v1`, Anthropic ones
//! `http://127.0.0.1:PORT`):
//!
//! ```json
//! {"routes": [
//!   {"when": {"system_contains": "plan-questions"},
//!    "replies": [{"answer": {"steps": [{"text": "```plan\n{...}\n```"}]}}]},
//!   {"replies": [
//!     {"status": {"status": 429, "retry_after": "1"}},
//!     {"answer": {"steps": [{"text": "Reading."},
//!                           {"tool_call": {"name": "turn_plan", "arguments": "{\"op\":\"start\",\"id\":1}"}},
//!                           "cut"],
//!                 "usage": [120, 8]}}]}
//! ]}
//! ```
//!
//! Steps are `{"text": …}`, `{"tool_call": {id?, name, arguments, fragments?}}`, `"cut"`
//! (drop the connection) and `"stall"` (send nothing more). A route with
//! `"repeat_last": true` keeps answering with its last reply.

use std::io::Write;
use std::process::ExitCode;

use preflight_testkit::{start_with_request_log, Script, ScriptedServer};

const USAGE: &str = "usage: scripted-provider SCRIPT.json [--requests FILE]";

#[tokio::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (script_path, log_path) = match args.as_slice() {
        [script] => (script, None),
        [script, flag, log] if flag == "--requests" => (script, Some(log)),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match serve(script_path, log_path).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("scripted-provider: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn serve(script_path: &str, log_path: Option<&String>) -> Result<(), String> {
    let text = std::fs::read_to_string(script_path).map_err(|e| format!("{script_path}: {e}"))?;
    let script: Script = serde_json::from_str(&text).map_err(|e| format!("{script_path}: {e}"))?;
    let server = match log_path {
        Some(path) => {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| format!("{path}: {e}"))?;
            start_with_request_log(script, log).await
        }
        None => ScriptedServer::start(script).await,
    }
    .map_err(|e| e.to_string())?;
    println!("listening on {}", server.url());
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    std::future::pending::<()>().await;
    Ok(())
}
