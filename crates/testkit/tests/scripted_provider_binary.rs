//! The `scripted-provider` binary: serves a JSON script, prints its URL first, records.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Command, Stdio};

#[test]
fn serves_a_script_from_a_json_file_and_logs_requests() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.json");
    let log = dir.path().join("requests.jsonl");
    std::fs::write(
        &script,
        r#"{"routes":[
            {"when":{"system_contains":"plan-questions"},"replies":[{"answer":{"steps":[{"text":"planner"}]}}]},
            {"replies":[{"answer":{"steps":[{"text":"Hello"},{"tool_call":{"name":"echo","arguments":"{}"}}]}}]}
        ]}"#,
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_scripted-provider"))
        .arg(&script)
        .arg("--requests")
        .arg(&log)
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first_line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first_line).unwrap();
    let address =
        first_line.trim().strip_prefix("listening on http://").expect(&first_line).to_owned();

    let body = r#"{"model":"m","stream":true,"messages":[{"role":"system","content":"executor"},{"role":"user","content":"hi"}]}"#;
    let mut stream = TcpStream::connect(&address).unwrap();
    write!(stream, "POST /v1/chat/completions HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}", body.len()).unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    child.kill().unwrap();
    child.wait().unwrap();

    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    assert!(
        response.contains(r#""content":"Hello""#) && !response.contains("planner"),
        "{response}"
    );
    assert!(
        response.contains(r#""finish_reason":"tool_calls""#) && response.contains("data: [DONE]"),
        "{response}"
    );
    let logged = std::fs::read_to_string(&log).unwrap();
    assert_eq!(logged.lines().count(), 1);
    assert!(logged.contains(r#""path":"/v1/chat/completions""#), "{logged}");
}
