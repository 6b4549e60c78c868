//! Black-box test of `preflight parse-planner-output`: a corpus of messy planner replies
//! (tests/corpus/planner/*.txt) through the built binary, each compared with its `.json`.
//! `UPDATE_EXPECT=1` rewrites the expected files (review the diff before committing).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn run_parser(input: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_preflight"))
        .arg("parse-planner-output")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the preflight binary starts");
    child.stdin.take().unwrap().write_all(input).unwrap();
    let output = child.wait_with_output().unwrap();
    let text = |bytes: Vec<u8>| String::from_utf8(bytes).expect("utf-8 output");
    (output.status.code().unwrap_or(-1), text(output.stdout), text(output.stderr))
}

fn corpus() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus/planner");
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the corpus folder exists")
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "txt"))
        .collect();
    inputs.sort();
    inputs
}

#[test]
fn every_corpus_reply_parses_as_expected() {
    let inputs = corpus();
    assert!(inputs.len() >= 12, "the corpus went missing");
    let mut mismatches = Vec::new();
    for input in inputs {
        let (code, stdout, stderr) = run_parser(&std::fs::read(&input).unwrap());
        assert_eq!(code, 0, "{}: {stderr}", input.display());
        let actual: serde_json::Value = serde_json::from_str(&stdout).expect("stdout is JSON");
        let expected_path = input.with_extension("json");
        if std::env::var_os("UPDATE_EXPECT").is_some() {
            std::fs::write(&expected_path, &stdout).unwrap();
            continue;
        }
        let expected: serde_json::Value = std::fs::read_to_string(&expected_path)
            .ok()
            .and_then(|text| serde_json::from_str(&text).ok())
            .unwrap_or(serde_json::Value::Null);
        if actual != expected {
            mismatches.push(format!("{}:\n{stdout}", input.display()));
        }
    }
    assert!(mismatches.is_empty(), "unexpected parses:\n{}", mismatches.join("\n"));
}

#[test]
fn bytes_that_are_not_utf8_still_give_json() {
    let (code, stdout, _) = run_parser(
        b"\xff\xfe garbage\n```plan-questions\n{\"questions\":[{\"question\":\"Q?\"}]}\n```",
    );
    assert_eq!(code, 0);
    let json: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(json["kind"], "questions");
    assert_eq!(json["questions"][0]["id"], "q1");
}

#[test]
fn a_wrong_invocation_prints_usage_and_fails() {
    let output =
        Command::new(env!("CARGO_BIN_EXE_preflight")).arg("no-such-command").output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("parse-planner-output"));
}
