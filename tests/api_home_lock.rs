//! One process per data folder (issue 14, finding 5): a second `preflight serve` on a folder
//! another process holds is refused with a message naming the holder, before it reads or
//! settles anything, and the holder keeps working; `preflight tasks` only reads, so it works
//! beside the holder.

mod support;

use std::process::{Command, Output};

use serde_json::json;
use support::{openai_config, Serve};

fn preflight(home: &std::path::Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(args)
        .env("PREFLIGHT_HOME", home)
        .env("RUST_LOG", "warn")
        .output()
        .expect("preflight runs")
}

#[tokio::test]
async fn a_second_serve_on_the_same_data_folder_is_refused_and_names_the_holder() {
    let first = Serve::start(&openai_config("http://127.0.0.1:9/v1"));
    let (status, chat) = first.request("POST", "/v1/chats", Some(json!({"title": "mine"}))).await;
    assert_eq!(status, 201, "{chat}");

    let second = preflight(first.home_path(), &["serve", "--addr", "127.0.0.1:0"]);
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "the second serve must not start: {stderr}");
    assert!(second.stdout.is_empty(), "no listening line: {:?}", second.stdout);
    let holder = format!("in use by preflight serve (pid {}", first.pid());
    assert!(stderr.contains(&holder), "the error names the holder: {stderr}");

    let (status, chats) = first.request("GET", "/v1/chats", None).await;
    assert_eq!(status, 200);
    assert_eq!(chats["data"].as_array().map(Vec::len), Some(1), "the holder still serves");
}

#[tokio::test]
async fn printing_a_task_list_works_beside_the_holder() {
    let serve = Serve::start(&openai_config("http://127.0.0.1:9/v1"));
    let (_, chat) = serve.request("POST", "/v1/chats", Some(json!({"title": "t"}))).await;
    let id = chat["id"].as_str().unwrap();

    let printed = preflight(serve.home_path(), &["tasks", id]);
    let stdout = String::from_utf8_lossy(&printed.stdout);
    assert!(printed.status.success(), "{}", String::from_utf8_lossy(&printed.stderr));
    assert_eq!(stdout.trim(), "t\nno task list in this chat", "the title, then the list");

    let unknown = preflight(serve.home_path(), &["tasks", "no-such-chat"]);
    assert!(!unknown.status.success());
    assert!(String::from_utf8_lossy(&unknown.stderr).contains("no-such-chat"));
}
