//! A session's requests wait for the server's own event stream (remote/stream_first.rs): a
//! server on loopback holds its answer to the GET until a request arrives (or a second
//! passes) and writes down which came first. Were `tools/list` sent beside the GET, as rmcp
//! alone does, it would arrive while the GET is held, and a request the server sent on a
//! stream not yet open would be lost (the flaky conformance run of 2026-12-05).

mod support;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use preflight_mcp::Profile;
use serde_json::{json, Value};
use support::mcp::Home;
use tokio::sync::Notify;

#[derive(Default)]
struct Server {
    seen: Mutex<Vec<&'static str>>,
    request: Notify,
}

impl Server {
    fn saw(&self, what: &'static str) {
        self.seen.lock().unwrap().push(what);
    }
}

async fn post_mcp(State(server): State<Arc<Server>>, Json(message): Json<Value>) -> Response {
    let Some(id) = message.get("id").cloned() else {
        return StatusCode::ACCEPTED.into_response();
    };
    let result = match message["method"].as_str() {
        Some("initialize") => json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"tools": {}},
            "serverInfo": {"name": "held-stream", "version": "1.0.0"},
        }),
        Some("tools/list") => {
            server.saw("tools/list");
            server.request.notify_one();
            json!({"tools": []})
        }
        _ => json!({}),
    };
    let mut headers = HeaderMap::new();
    headers.insert("mcp-session-id", "session-1".parse().unwrap());
    (headers, Json(json!({"jsonrpc": "2.0", "id": id, "result": result}))).into_response()
}

/// Answers the GET once a request has come, or after a second: whichever is first.
async fn get_mcp(State(server): State<Arc<Server>>) -> Response {
    let _ = tokio::time::timeout(Duration::from_secs(1), server.request.notified()).await;
    server.saw("event stream answered");
    let open = futures_util::stream::pending::<Result<Vec<u8>, std::io::Error>>();
    ([("content-type", "text/event-stream")], Body::from_stream(open)).into_response()
}

async fn serve(server: Arc<Server>) -> String {
    let app = Router::new()
        .route("/mcp", post(post_mcp).get(get_mcp).delete(|| async { StatusCode::OK }))
        .with_state(server);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sessions_first_request_waits_for_the_servers_event_stream() {
    let server = Arc::new(Server::default());
    let url = serve(server.clone()).await;
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"held": {"type": "http", "url": url}}}));
    let host = home.host();
    let tools = host.tools(Profile::Execution, Some(home.ws())).await.unwrap();
    assert!(tools.unavailable.is_empty(), "{:?}", tools.unavailable);
    let seen = server.seen.lock().unwrap().clone();
    assert_eq!(seen, ["event stream answered", "tools/list"]);
    host.shutdown().await;
}
