//! Export and import (DESIGN §15) through the API and the command line: a chat planned with
//! a question, approved, stopped and continued to its completion is exported, imported as a
//! new chat and exported again the same but for ids and the time; its Markdown reads as the
//! chat went with no HTML of the model's; refused imports store nothing; `preflight export`
//! reads beside a running server, and `preflight import` waits for the data folder's lock.

use std::path::Path;
use std::process::{Command, Output};

use preflight_testkit::{Answer, Reply, Script, ScriptedServer};
use serde_json::{json, Value};

use crate::support::script::{anyone, planner, questions};
use crate::support::{openai_config, Serve};

fn turn_plan(arguments: Value) -> Reply {
    Answer::new().tool_call("turn_plan", arguments).into()
}

/// `GET path` with the token: the status, the content type and the body as text.
async fn download(serve: &Serve, path: &str) -> (u16, String, String) {
    let response = reqwest::Client::new()
        .get(serve.url(path))
        .bearer_auth(&serve.token)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let header = response.headers().get("content-type").map(|v| v.to_str().unwrap().to_owned());
    (status, header.unwrap_or_default(), response.text().await.unwrap())
}

/// `POST /v1/chats/import` of `body` as it is.
async fn import(serve: &Serve, body: impl Into<reqwest::Body>) -> (u16, Value) {
    let response = reqwest::Client::new()
        .post(serve.url("/v1/chats/import"))
        .bearer_auth(&serve.token)
        .body(body)
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    (status, serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null))
}

/// A chat asked one question, its plan approved, stopped after its first task, continued
/// and completed: every part an export carries.
async fn finished_chat(serve: &Serve) -> String {
    let id = serve.create_chat(json!({"title": "Report <b>now</b>"})).await;
    let mut events = serve.events(&id).await;
    serve.post(&format!("/v1/chats/{id}/messages"), json!({"content": "Make a report"})).await;
    events.wait_for_phase("questions").await;
    let answer = json!({"question_id": "q1", "answer": "csv"});
    assert_eq!(serve.post(&format!("/v1/chats/{id}/answers"), answer).await.0, 202);
    events.wait_for_phase("awaiting_approval").await;
    assert_eq!(serve.post(&format!("/v1/chats/{id}/plan/approve"), json!(null)).await.0, 202);
    events.wait_for("the stop", |name, _| name == "executor_stopped").await;
    events.wait_for_phase("idle").await;
    assert_eq!(serve.post(&format!("/v1/chats/{id}/continue"), json!(null)).await.0, 202);
    events.wait_for("the completion", |name, _| name == "completion").await;
    events.wait_for_phase("idle").await;
    id
}

async fn scripted_serve() -> (ScriptedServer, Serve) {
    let plan = crate::support::script::plan("Report", &["Read the rows", "Write the report"]);
    let script = Script::new()
        .route(planner(), [questions(&[("q1", "Which format?", ["csv", "json", "xml"])]), plan])
        .route(
            anyone(),
            [
                turn_plan(json!({"op": "done", "id": 1, "outcome": "rows read"})),
                Reply::text("The rows are read; <script>alert(1)</script> stopping here."),
                turn_plan(json!({"op": "done", "id": 2})),
                Reply::text("The report is written."),
            ],
        );
    let provider = ScriptedServer::start(script).await.unwrap();
    let serve = Serve::start(&openai_config(&provider.openai_url()));
    (provider, serve)
}

/// The export with its ids named by their place and no time of export.
fn without_ids(mut export: Value) -> Value {
    export["exported_at"] = json!("-");
    for (n, message) in export["messages"].as_array_mut().unwrap().iter_mut().enumerate() {
        message["id"] = json!(format!("m{n}"));
    }
    export
}

#[tokio::test(flavor = "multi_thread")]
async fn a_finished_chat_exported_and_imported_is_the_same_chat_with_new_ids() {
    let (_provider, serve) = scripted_serve().await;
    let id = finished_chat(&serve).await;
    let (status, content_type, text) = download(&serve, &format!("/v1/chats/{id}/export")).await;
    assert_eq!((status, content_type.as_str()), (200, "application/json"), "{text}");
    let first: Value = serde_json::from_str(&text).unwrap();
    assert!(first["completion"].is_object() && first["stops"]["events"][1]["kind"] == "continued");

    let (status, imported) = import(&serve, text).await;
    assert_eq!(status, 201, "{imported}");
    let new_id = imported["id"].as_str().unwrap().to_owned();
    assert_ne!(new_id, id);
    assert_eq!(imported["state"]["phase"], "idle");
    assert_eq!(imported["state"]["completion"], first["completion"]);
    let (_, _, again) = download(&serve, &format!("/v1/chats/{new_id}/export?format=json")).await;
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_ne!(again["messages"][0]["id"], first["messages"][0]["id"]);
    assert_eq!(without_ids(again), without_ids(first));

    let path = format!("/v1/chats/{new_id}/export?format=markdown");
    let (status, content_type, markdown) = download(&serve, &path).await;
    assert_eq!((status, content_type.as_str()), (200, "text/markdown; charset=utf-8"));
    for part in ["# Report &lt;b>now&lt;/b>", "> Which format?", "**Continue**", "## Completion"] {
        assert!(markdown.contains(part), "{part:?} in {markdown}");
    }
    assert!(!markdown.contains("<script>"), "no HTML of the model's: {markdown}");
}

#[tokio::test]
async fn a_refused_export_or_import_says_why_and_stores_nothing() {
    let serve = Serve::start(&openai_config("http://127.0.0.1:9/v1"));
    let id = serve.create_chat(json!({"title": "Kept"})).await;
    let (status, _, body) = download(&serve, &format!("/v1/chats/{id}/export?format=pdf")).await;
    assert_eq!(status, 400, "{body}");
    let (status, _, _) = download(&serve, "/v1/chats/nope/export").await;
    assert_eq!(status, 404);

    let (_, _, export) = download(&serve, &format!("/v1/chats/{id}/export")).await;
    let mut newer: Value = serde_json::from_str(&export).unwrap();
    newer["format"] = json!(2);
    let mut oversized = export.into_bytes();
    oversized.resize(64 * 1024 * 1024 + 1, b' ');
    let cases: [(Vec<u8>, &str); 4] = [
        (b"{\"format\": 1,".to_vec(), "the file is not JSON"),
        (br#"{"chat": "Kept"}"#.to_vec(), "not a Preflight chat export"),
        (newer.to_string().into_bytes(), "newer Preflight: format 2, this build reads 1"),
        (oversized, "larger than 64 MiB"),
    ];
    for (body, expected) in cases {
        let (status, answer) = import(&serve, body).await;
        assert_eq!((status, answer["error"]["code"].as_str()), (400, Some("ERR_BAD_REQUEST")));
        let message = answer["error"]["message"].as_str().unwrap();
        assert!(message.contains(expected), "{expected:?} in {message:?}");
    }
    let (_, chats) = serve.get("/v1/chats").await;
    assert_eq!(chats["data"].as_array().map(Vec::len), Some(1), "nothing was stored");
}

fn preflight(home: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(args)
        .env("PREFLIGHT_HOME", home)
        .env("RUST_LOG", "warn")
        .output()
        .expect("preflight runs")
}

fn stdout_of(output: &Output) -> String {
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    String::from_utf8(output.stdout.clone()).unwrap()
}

#[tokio::test]
async fn the_command_line_exports_beside_a_server_and_imports_when_the_folder_is_free() {
    let serve = Serve::start(&openai_config("http://127.0.0.1:9/v1"));
    let id = serve.create_chat(json!({"title": "On the command line"})).await;
    let files = tempfile::tempdir().unwrap();
    let file = files.path().join("chat.json");
    let file = file.to_str().unwrap();

    let markdown =
        stdout_of(&preflight(serve.home_path(), &["export", &id, "--format", "markdown"]));
    assert!(markdown.starts_with("# On the command line\n"), "{markdown}");
    stdout_of(&preflight(serve.home_path(), &["export", &id, "--output", file]));
    let exported: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    assert_eq!(exported["chat"]["title"], "On the command line");

    let refused = preflight(serve.home_path(), &["import", file]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(
        stderr.contains("in use by preflight serve") && stderr.contains("POST /v1/chats/import"),
        "{stderr}"
    );

    let elsewhere = tempfile::tempdir().unwrap();
    let new_id = stdout_of(&preflight(elsewhere.path(), &["import", file])).trim().to_owned();
    assert!(!new_id.is_empty() && new_id != id);
    let again = stdout_of(&preflight(elsewhere.path(), &["export", &new_id]));
    let again: Value = serde_json::from_str(&again).unwrap();
    assert_eq!(without_ids(again), without_ids(exported));
    let (_, chats) = serve.get("/v1/chats").await;
    assert_eq!(
        chats["data"].as_array().map(Vec::len),
        Some(1),
        "the refused import stored nothing"
    );
}
