//! Remote servers over Streamable HTTP, against the reference `everything` server from npm
//! serving HTTP on loopback: its tools are listed and called like a child process's, a
//! header's `${env:NAME}` is filled in, the HTTP+SSE transport of 2024-11-05 works when
//! asked for and as the fallback of an untyped entry, (and a missing variable is a clear start error), and
//! its elicitation reaches the caller's asker, is declined with no asker, and is declined
//! (with the planner told) while planning.

mod support;

use std::sync::{Arc, Mutex};

use preflight_mcp::{Answer, Asker, Profile, Question};
use preflight_testkit::HttpEverything;
use serde_json::json;
use support::mcp::{call, Home};
use tokio_util::sync::CancellationToken;

async fn serve_everything() -> HttpEverything {
    HttpEverything::start("streamableHttp").await
}

fn remote_entry(url: &str, marked: bool) -> serde_json::Value {
    json!({"mcpServers": {"everything": {
        "type": "http",
        "url": url,
        "headers": {"X-Preflight-Test": "${env:HOME}"},
        "readWhilePlanning": marked,
    }}})
}

/// Accepts every form with fixed content, and keeps the questions it was asked.
#[derive(Default)]
struct Accepting {
    asked: Mutex<Vec<Question>>,
}

#[async_trait::async_trait]
impl Asker for Accepting {
    async fn ask(&self, question: Question) -> Answer {
        let mut content = question.defaults();
        content.insert("name".into(), json!("Ada Lovelace"));
        content.insert("check".into(), json!(true));
        self.asked.lock().unwrap().push(question);
        Answer::Accept { content }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamable_http_server_is_listed_and_called_like_a_local_one() {
    let server = serve_everything().await;
    let home = Home::new();
    home.write_mcp_json(&remote_entry(&server.url, false));
    let host = home.host();
    let tools = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    assert!(tools.tools.iter().any(|t| t.name == "mcp_everything_echo"), "{:?}", tools.unavailable);
    let echo = call(
        &host,
        Profile::Execution,
        Some(home.ws()),
        "mcp_everything_echo",
        json!({"message": "over http"}),
    )
    .await;
    assert!(!echo.is_error && echo.content.contains("over http"), "{echo:?}");
    let running = host.running_servers().await.unwrap();
    let remote = running.iter().find(|r| r.server == "everything").expect("running");
    assert_eq!(remote.pid, None, "a remote server has no process");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unset_header_variable_is_a_start_error_naming_it() {
    let home = Home::new();
    let entry = json!({"mcpServers": {"remote": {"url": "http://127.0.0.1:9/mcp",
        "headers": {"Authorization": "Bearer ${env:PREFLIGHT_TEST_SURELY_UNSET}"}}}});
    home.write_mcp_json(&entry);
    let host = home.host();
    let tools = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    let why = format!("{:?}", tools.unavailable);
    assert!(why.contains("PREFLIGHT_TEST_SURELY_UNSET") && why.contains("not set"), "{why}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_elicitation_goes_to_the_asker_of_the_running_call_and_is_declined_without_one() {
    let server = serve_everything().await;
    let home = Home::new();
    home.write_mcp_json(&remote_entry(&server.url, false));
    let host = home.host();
    let asker = Arc::new(Accepting::default());
    let answered = host
        .call_asking(
            Profile::Execution,
            Some(home.ws()),
            "mcp_everything_trigger-elicitation-request",
            json!({}),
            &CancellationToken::new(),
            Some(asker.clone()),
        )
        .await;
    assert!(!answered.is_error && answered.content.contains("Ada Lovelace"), "{answered:?}");
    let asked = asker.asked.lock().unwrap().clone();
    let [Question::Form { server, schema, .. }] = asked.as_slice() else { panic!("{asked:?}") };
    assert_eq!(server, "everything");
    assert_eq!(schema["properties"]["integer"]["default"], 42);

    let declined = call(
        &host,
        Profile::Execution,
        Some(home.ws()),
        "mcp_everything_trigger-elicitation-request",
        json!({}),
    )
    .await;
    assert!(declined.content.to_lowercase().contains("decline"), "{declined:?}");
    host.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_sse_server_works_when_asked_for_and_as_the_fallback_of_an_untyped_url() {
    let server = HttpEverything::start("sse").await;
    for entry in [json!({"type": "sse", "url": server.url}), json!({"url": server.url})] {
        let home = Home::new();
        home.write_mcp_json(&json!({"mcpServers": {"old": entry}}));
        let host = home.host();
        let echo = call(
            &host,
            Profile::Execution,
            Some(home.ws()),
            "mcp_old_echo",
            json!({"message": "over sse"}),
        )
        .await;
        assert!(!echo.is_error && echo.content.contains("over sse"), "{entry}: {echo:?}");
        host.shutdown().await;
    }
}

/// A loopback port answering every request with a redirect to `location`.
fn redirecting_to(location: String) -> std::net::SocketAddr {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 8192];
            let _ = stream.read(&mut request);
            let answer = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = stream.write_all(answer.as_bytes());
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redirect_to_another_origin_is_refused_and_sends_it_nothing() {
    use std::io::Read;
    // The other origin: records whatever reaches it (it would see the entry's key).
    let elsewhere = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let elsewhere_addr = elsewhere.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(String::new()));
    let sink = Arc::clone(&seen);
    std::thread::spawn(move || {
        for mut stream in elsewhere.incoming().flatten() {
            let mut bytes = [0u8; 8192];
            let n = stream.read(&mut bytes).unwrap_or(0);
            sink.lock().unwrap().push_str(&String::from_utf8_lossy(&bytes[..n]));
        }
    });
    let origin = redirecting_to(format!("http://{elsewhere_addr}/mcp"));
    for kind in ["http", "sse"] {
        let home = Home::new();
        let entry = json!({"mcpServers": {"remote": {"type": kind, "url": format!("http://{origin}/mcp"),
            "headers": {"X-Api-Key": "preflight-secret-key"}}}});
        home.write_mcp_json(&entry);
        let host = home.host();
        let tools = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
        let why = format!("{:?}", tools.unavailable);
        // reqwest keeps the policy's own words inside its error; its message names the redirect.
        assert!(why.contains("redirect") || why.contains("another origin"), "{kind}: {why}");
        host.shutdown().await;
    }
    assert_eq!(seen.lock().unwrap().as_str(), "", "the other origin got a request");
}
