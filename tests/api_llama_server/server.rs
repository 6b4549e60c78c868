//! The real peer: llama-cpp-python's OpenAI-compatible server (`python -m llama_cpp.server`,
//! installed by `scripts/lib/llama-server.sh` into its own venv) serving the embedded model's
//! GGUF on loopback, and a recording proxy in front of it that keeps every answer the server
//! gave (its usage, its tool calls) and can force a tool on the next request — the one
//! thing a 135M model cannot be trusted to choose. The proxy changes nothing else.

use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::{to_bytes, Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use serde_json::Value;

/// The venv's Python: `$PREFLIGHT_LLAMA_SERVER_PYTHON`, else where the set-up puts it.
fn python() -> PathBuf {
    if let Some(set) = std::env::var_os("PREFLIGHT_LLAMA_SERVER_PYTHON") {
        return PathBuf::from(set);
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .filter(|value| !value.is_empty())
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache"));
    cache.join("preflight/llama-server-0.3.36/bin/python")
}

fn gguf() -> PathBuf {
    let dir = preflight_embedded::catalog::models_dir(|name| std::env::var_os(name))
        .expect("a models folder");
    dir.join(preflight_embedded::catalog::MODELS[0].file_name)
}

/// The running server; killed when dropped.
pub struct LlamaServer {
    child: tokio::process::Child,
    pub port: u16,
}

impl LlamaServer {
    /// Starts the server with a context of `n_ctx` tokens and waits until it lists its model.
    pub async fn start(n_ctx: u32) -> LlamaServer {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        LlamaServer::start_on(port, n_ctx).await
    }

    /// [`LlamaServer::start`] on `port` (a server started again where the last one died).
    pub async fn start_on(port: u16, n_ctx: u32) -> LlamaServer {
        let python = python();
        assert!(
            python.exists(),
            "llama-cpp-python's server is not installed at {} (run scripts/setup.sh --tests)",
            python.display()
        );
        let child = tokio::process::Command::new(python)
            .args(["-m", "llama_cpp.server", "--host", "127.0.0.1", "--port", &port.to_string()])
            .arg("--model")
            .arg(gguf())
            .args(["--model_alias", "smollm2", "--chat_format", "chatml-function-calling"])
            .args(["--n_ctx", &n_ctx.to_string(), "--seed", "7", "--n_threads", "2"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("python runs llama_cpp.server");
        let server = LlamaServer { child, port };
        let models = format!("http://127.0.0.1:{port}/v1/models");
        for _ in 0..600 {
            if reqwest::get(&models).await.is_ok_and(|answer| answer.status().is_success()) {
                return server;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("llama_cpp.server did not answer on port {port} within 30 s");
    }

    /// Kills the server at once (SIGKILL), as a crash would.
    pub async fn kill(&mut self) {
        self.child.kill().await.unwrap();
    }
}

/// What the proxy saw and what it is told to do.
#[derive(Default)]
struct Log {
    /// Every answer of the server, as JSON.
    answers: Vec<Value>,
    /// Every request body Preflight sent.
    requests: Vec<Value>,
    /// Force this tool on the next request that offers it.
    force_tool: Option<String>,
    /// Give the next chat request's first message a role no API has.
    break_next: bool,
}

#[derive(Clone)]
struct Shared {
    upstream: String,
    client: reqwest::Client,
    log: Arc<Mutex<Log>>,
}

/// The recording proxy; its base URL (`…/v1`) is what Preflight is configured with.
pub struct Proxy {
    pub base_url: String,
    log: Arc<Mutex<Log>>,
}

impl Proxy {
    pub async fn start(upstream_port: u16) -> Proxy {
        let log = Arc::new(Mutex::new(Log::default()));
        let shared = Shared {
            upstream: format!("http://127.0.0.1:{upstream_port}"),
            client: reqwest::Client::builder().no_proxy().build().unwrap(),
            log: log.clone(),
        };
        let app = axum::Router::new().fallback(forward).with_state(shared);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Proxy { base_url, log }
    }

    /// The next request that offers `tool` gets `tool_choice` naming it.
    pub fn force_tool(&self, tool: &str) {
        self.log.lock().unwrap().force_tool = Some(tool.to_owned());
    }

    /// The next chat request reaches the server with a role its schema refuses.
    pub fn break_next_request(&self) {
        self.log.lock().unwrap().break_next = true;
    }

    pub fn answers(&self) -> Vec<Value> {
        self.log.lock().unwrap().answers.clone()
    }

    pub fn requests(&self) -> Vec<Value> {
        self.log.lock().unwrap().requests.clone()
    }
}

async fn forward(State(shared): State<Shared>, request: Request) -> Response {
    let (parts, body) = request.into_parts();
    let bytes = to_bytes(body, 64 << 20).await.unwrap_or_default();
    let bytes = match serde_json::from_slice::<Value>(&bytes) {
        Ok(json) => Bytes::from(serde_json::to_vec(&shared.rewrite(json)).unwrap()),
        Err(_) => bytes,
    };
    let url = format!("{}{}", shared.upstream, parts.uri);
    let mut headers = parts.headers.clone();
    headers.remove("host");
    headers.remove("content-length");
    let sent = shared.client.request(parts.method, url).headers(headers).body(bytes).send().await;
    let Ok(answer) = sent else {
        // The server is gone: the connection is dropped as the server's own would be.
        return Response::builder().status(StatusCode::BAD_GATEWAY).body(Body::empty()).unwrap();
    };
    let status = answer.status();
    let content_type = answer.headers().get("content-type").cloned();
    let Ok(body) = answer.bytes().await else {
        return Response::builder().status(StatusCode::BAD_GATEWAY).body(Body::empty()).unwrap();
    };
    if let Ok(json) = serde_json::from_slice::<Value>(&body) {
        shared.log.lock().unwrap().answers.push(json);
    }
    let mut response = Response::builder().status(status).body(Body::from(body)).unwrap();
    let mut headers = HeaderMap::new();
    headers.insert("content-type", content_type.unwrap_or(HeaderValue::from_static("text/plain")));
    *response.headers_mut() = headers;
    response
}

impl Shared {
    /// Records a chat request; forces the tool it was told to when the request offers it.
    fn rewrite(&self, mut body: Value) -> Value {
        let mut log = self.log.lock().unwrap();
        let offers = |name: &str| {
            body["tools"]
                .as_array()
                .is_some_and(|tools| tools.iter().any(|tool| tool["function"]["name"] == name))
        };
        if let Some(tool) = log.force_tool.clone().filter(|tool| offers(tool)) {
            body["tool_choice"] =
                serde_json::json!({"type": "function", "function": {"name": tool}});
            log.force_tool = None;
        }
        log.requests.push(body.clone());
        if log.break_next && body["messages"].is_array() {
            body["messages"][0]["role"] = "wizard".into();
            log.break_next = false;
        }
        body
    }
}
