//! The protocol revision each kind of server gets, read off the wire: a 2025-11-25 server
//! over stdio (the real filesystem server from npm, its stdin and stdout copied by `tee`)
//! is probed with `server/discover`, answers that it does not know it, and is initialized
//! at 2025-11-25; a server that answers `initialize` with 2025-06-18 (the fixture) is used at
//! 2025-06-18; a 2026-07-28 server over HTTP (rmcp's own Streamable HTTP server, on
//! loopback) is discovered, never initialized, and every request carries the
//! `MCP-Protocol-Version: 2026-07-28` header and the version in `_meta`, including the
//! second round of a call whose first answer was `input_required` (its question goes to
//! the caller's asker, its request state comes back as it was sent), and of a prompt's
//! (whose question nobody is there to answer: declined).

mod support;

use std::sync::{Arc, Mutex};

use axum::body::Body;
use axum::extract::Request;
use axum::middleware::Next;
use preflight_mcp::{Answer, Asker, Profile, Question};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, GetPromptRequestParams,
    GetPromptResponse, GetPromptResult, InputRequiredResult, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{RoleServer, ServerHandler};
use serde_json::{json, Value};
use support::mcp::{call, fixture, fs_server, Home};
use tokio_util::sync::CancellationToken;

/// The JSON lines of `path` (a `tee` copy or the fixture's log).
fn lines(path: &std::path::Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect()
}

fn methods(messages: &[Value]) -> Vec<&str> {
    messages.iter().filter_map(|m| m["method"].as_str()).collect()
}

/// The answer to the request `id` among `messages`.
fn answer_to<'a>(messages: &'a [Value], id: &Value) -> &'a Value {
    messages.iter().find(|m| &m["id"] == id && m.get("method").is_none()).expect("an answer")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_11_25_server_over_stdio_is_probed_then_initialized_at_2025_11_25() {
    let home = Home::new();
    let (sent, received) = (home.data.path().join("sent"), home.data.path().join("received"));
    let script = "tee \"$0\" | node \"$1\" \"$2\" | tee \"$3\"";
    let (sent_path, received_path) = (sent.display().to_string(), received.display().to_string());
    let server = fs_server().display().to_string();
    let args = ["-c", script, &sent_path, &server, "${workspace}", &received_path];
    home.write_mcp_json(&json!({"mcpServers": {"filesystem": {"command": "sh", "args": args}}}));
    let host = home.host();
    let read = json!({"path": home.ws().join("README.md")});
    let output =
        call(&host, Profile::Execution, Some(home.ws()), "mcp_filesystem_read_text_file", read)
            .await;
    assert!(!output.is_error && output.content.contains("hello"), "{output:?}");
    host.shutdown().await;

    let (sent, received) = (lines(&sent), lines(&received));
    assert_eq!(methods(&sent)[..2], ["server/discover", "initialize"], "{sent:?}");
    let discover = &sent[0];
    let meta = &discover["params"]["_meta"];
    assert_eq!(meta["io.modelcontextprotocol/protocolVersion"], "2026-07-28", "{discover}");
    let refusal = answer_to(&received, &discover["id"]);
    assert!(refusal.get("error").is_some(), "an older server refuses discovery: {refusal}");
    let initialize = &sent[1];
    assert_eq!(initialize["params"]["protocolVersion"], "2025-11-25", "{initialize}");
    let agreed = answer_to(&received, &initialize["id"]);
    assert_eq!(agreed["result"]["protocolVersion"], "2025-11-25", "{agreed}");
    let call = sent.iter().find(|m| m["method"] == "tools/call").expect("the call was sent");
    let meta = &call["params"]["_meta"];
    assert!(meta.get("io.modelcontextprotocol/protocolVersion").is_none(), "{call}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_answering_2025_06_18_is_used_at_2025_06_18() {
    let home = Home::new();
    let log = home.data.path().join("log");
    let args = [fixture(), "--protocol=2025-06-18".into(), format!("--log={}", log.display())];
    home.write_mcp_json(&json!({"mcpServers": {"old": {"command": "node", "args": args}}}));
    let host = home.host();
    let echo = call(&host, Profile::Execution, None, "mcp_old_echo", json!({"text": "hi"})).await;
    assert!(!echo.is_error && echo.content == "hi", "{echo:?}");
    host.shutdown().await;
    let sent = lines(&log);
    let methods = methods(&sent);
    assert_eq!(methods[..2], ["server/discover", "initialize"], "{sent:?}");
    assert!(methods.contains(&"notifications/initialized"), "{methods:?}");
    assert!(methods.contains(&"tools/call"), "{methods:?}");
}

/// What reached the HTTP server: each POST's JSON-RPC method, its `MCP-Protocol-Version`
/// header and the version its `_meta` names.
type Seen = Arc<Mutex<Vec<(String, String, String)>>>;

async fn record(seen: Seen, request: Request, next: Next) -> axum::response::Response {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20).await.unwrap_or_default();
    if parts.method == axum::http::Method::POST {
        let message: Value = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        let header = parts.headers.get("mcp-protocol-version");
        let header = header.and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
        let meta = &message["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"];
        let method = message["method"].as_str().unwrap_or("").to_owned();
        seen.lock().unwrap().push((method, header, meta.as_str().unwrap_or("").to_owned()));
    }
    next.run(Request::from_parts(parts, Body::from(bytes))).await
}

/// A 2026-07-28 server: `greet` asks who is there (`input_required`) and greets them once
/// the answer and its request state come back.
#[derive(Clone)]
struct Greeter;

impl ServerHandler for Greeter {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().enable_prompts().build())
    }

    /// `who`: asks who is there, and says what the answer was (no tool call runs, so the
    /// host declines).
    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let Some(answers) = request.input_responses else {
            return Ok(who_is_there().into());
        };
        let action = answers["who"]["action"].as_str().unwrap_or("?").to_owned();
        let text =
            format!("the host said: {action} ({})", request.request_state.unwrap_or_default());
        let result: GetPromptResult = serde_json::from_value(json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
        }))
        .unwrap();
        Ok(result.into())
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let schema = json!({"type": "object", "properties": {}});
        let tool: Tool =
            serde_json::from_value(json!({"name": "greet", "inputSchema": schema})).unwrap();
        Ok(ListToolsResult::with_all_items(vec![tool]))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(answers) = request.input_responses else {
            return Ok(who_is_there().into());
        };
        let name = &answers["who"]["content"]["name"];
        let state = request.request_state.unwrap_or_default();
        let result: CallToolResult = serde_json::from_value(json!({
            "content": [{"type": "text", "text": format!("hello {} ({state})", name.as_str().unwrap_or("?"))}],
        }))
        .unwrap();
        Ok(result.into())
    }
}

/// The `input_required` answer asking who is there (request state `opaque-1`).
fn who_is_there() -> InputRequiredResult {
    let schema = json!({"type": "object", "properties": {"name": {"type": "string"}}});
    serde_json::from_value(json!({
        "resultType": "input_required",
        "inputRequests": {"who": {"method": "elicitation/create", "params":
            {"mode": "form", "message": "Who is there?", "requestedSchema": schema}}},
        "requestState": "opaque-1",
    }))
    .unwrap()
}

/// Answers every form with the name Ada.
struct Ada;

#[async_trait::async_trait]
impl Asker for Ada {
    async fn ask(&self, _question: Question) -> Answer {
        let mut content = serde_json::Map::new();
        content.insert("name".into(), json!("Ada"));
        Answer::Accept { content }
    }
}

async fn serve_greeter(seen: Seen) -> String {
    let config = StreamableHttpServerConfig::default();
    let manager = Arc::new(LocalSessionManager::default());
    let service = StreamableHttpService::new(|| Ok(Greeter), manager, config);
    let layer = axum::middleware::from_fn(move |request: Request, next: Next| {
        record(Arc::clone(&seen), request, next)
    });
    let app = axum::Router::new().nest_service("/mcp", service).layer(layer);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://127.0.0.1:{}/mcp", listener.local_addr().unwrap().port());
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_server_is_discovered_and_every_request_says_its_version() {
    let seen = Seen::default();
    let url = serve_greeter(Arc::clone(&seen)).await;
    let home = Home::new();
    home.write_mcp_json(&json!({"mcpServers": {"new": {"type": "http", "url": url}}}));
    let host = home.host();
    let asker: Arc<dyn Asker> = Arc::new(Ada);
    let name = "mcp_new_greet";
    let cancel = CancellationToken::new();
    let greeted =
        host.call_asking(Profile::Execution, None, name, json!({}), &cancel, Some(asker)).await;
    assert!(!greeted.is_error && greeted.content == "hello Ada (opaque-1)", "{greeted:?}");
    let prompt = host.get_prompt(None, "new", "who", Default::default()).await.unwrap();
    assert_eq!(prompt.text, "the host said: decline (opaque-1)");
    host.shutdown().await;

    let seen = seen.lock().unwrap().clone();
    let methods: Vec<&str> = seen.iter().map(|(method, _, _)| method.as_str()).collect();
    let count = |wanted: &str| methods.iter().filter(|method| **method == wanted).count();
    assert!(methods[..2] == ["server/discover", "tools/list"], "{seen:?}");
    // Each in two rounds: `input_required`, then the answer.
    assert_eq!((count("tools/call"), count("prompts/get")), (2, 2), "{seen:?}");
    assert_eq!(count("initialize"), 0, "{seen:?}");
    for (method, header, meta) in &seen {
        assert_eq!((header.as_str(), meta.as_str()), ("2026-07-28", "2026-07-28"), "{method}");
    }
}
