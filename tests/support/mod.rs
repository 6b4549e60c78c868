//! Black-box test support: a real `preflight serve` process on loopback with its own temp
//! `PREFLIGHT_HOME`, an HTTP client carrying its token, and its SSE event stream; and the
//! tidy test's reading of Rust sources (`tidy`).

#![allow(dead_code)] // each test binary compiles every part and uses only its own

pub mod events;
pub mod pane;
pub mod script;
pub mod tidy;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use serde_json::Value;
use tempfile::TempDir;

pub use events::EventStream;

/// A running `preflight serve`; killed when dropped.
pub struct Serve {
    child: Child,
    pub base: String,
    pub token: String,
    /// Shared by servers started together on one home.
    home: Arc<TempDir>,
    client: reqwest::Client,
}

/// The `config.toml` of a home whose provider is an OpenAI-compatible server at `url`.
pub fn openai_config(url: &str) -> String {
    format!("[provider]\nkind = \"openai\"\nbase_url = \"{url}\"\nmodel = \"scripted\"\n")
}

/// The variable (and its value) holding the key of [`anthropic_config`]'s provider.
pub const ANTHROPIC_KEY_ENV: (&str, &str) = ("PREFLIGHT_TEST_ANTHROPIC_KEY", "sk-ant-test");

/// The `config.toml` of a home whose provider is an Anthropic server at `url` (the scripted
/// server's own URL), its key in [`ANTHROPIC_KEY_ENV`]: start it with
/// [`Serve::start_with_config`] passing that variable.
pub fn anthropic_config(url: &str) -> String {
    format!(
        "[provider]\nkind = \"anthropic\"\nbase_url = \"{url}\"\nmodel = \"scripted-claude\"\n\
         api_key_env = \"{}\"\n",
        ANTHROPIC_KEY_ENV.0
    )
}

impl Serve {
    /// Starts `preflight serve` on a new home holding `config` as `config.toml`.
    pub fn start(config: &str) -> Serve {
        Serve::start_with_config(config, &[])
    }

    /// [`Serve::start`] with more environment variables (a provider's key, a models folder).
    pub fn start_with_config(config: &str, env: &[(&str, &str)]) -> Serve {
        let home = TempDir::new().unwrap();
        std::fs::write(home.path().join("config.toml"), config).unwrap();
        Serve::start_with_env(home, env)
    }

    /// Starts `preflight serve` on an existing home (e.g. to check a restart), then waits
    /// for its listening line.
    pub fn start_in(home: TempDir) -> Serve {
        Serve::start_with_env(home, &[])
    }

    /// [`Serve::start_in`] with more environment variables (e.g. `PIP_*` for the sandbox).
    pub fn start_with_env(home: TempDir, env: &[(&str, &str)]) -> Serve {
        let mut child = spawn_with_env(home.path(), Stdio::inherit(), env);
        let line = first_line(&mut child);
        if !line.starts_with("listening on ") {
            child.kill().ok();
            child.wait().ok();
            panic!("unexpected first line {line:?}");
        }
        let token =
            std::fs::read_to_string(home.path().join("api-token")).unwrap().trim().to_owned();
        let base = line.trim().trim_start_matches("listening on ").to_owned();
        Serve { child, base, token, home: Arc::new(home), client: reqwest::Client::new() }
    }

    /// Stops the process and hands its home back, for a restart.
    pub fn stop(mut self) -> TempDir {
        self.child.kill().ok();
        self.child.wait().ok();
        let home = std::mem::replace(&mut self.home, Arc::new(TempDir::new().unwrap()));
        Arc::try_unwrap(home).unwrap_or_else(|_| panic!("another server still runs on this home"))
    }

    /// The server's process id.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn home_path(&self) -> &Path {
        self.home.path()
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// Any request, with the token; the status and the JSON body (`Null` when not JSON).
    pub async fn request(&self, method: &str, path: &str, body: Option<Value>) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.client.request(method, self.url(path)).bearer_auth(&self.token);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("the server answers");
        let status = response.status().as_u16();
        let text = response.text().await.unwrap();
        (status, serde_json::from_str(&text).unwrap_or(Value::Null))
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        self.request("GET", path, None).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        self.request("POST", path, Some(body)).await
    }

    /// A raw request: exact body bytes and headers, with or without the token.
    pub async fn raw(
        &self,
        method: &str,
        path: &str,
        body: &str,
        headers: &[(&str, &str)],
        token: bool,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self.client.request(method, self.url(path)).body(body.to_owned());
        if token {
            request = request.bearer_auth(&self.token);
        }
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request.send().await.unwrap();
        let status = response.status().as_u16();
        (status, serde_json::from_str(&response.text().await.unwrap()).unwrap_or(Value::Null))
    }

    /// Creates a chat from `body` and returns its id.
    pub async fn create_chat(&self, body: Value) -> String {
        let (status, chat) = self.post("/v1/chats", body).await;
        assert_eq!(status, 201, "{chat}");
        chat["id"].as_str().unwrap().to_owned()
    }

    pub async fn chat(&self, id: &str) -> Value {
        let (status, chat) = self.get(&format!("/v1/chats/{id}")).await;
        assert_eq!(status, 200, "{chat}");
        chat
    }

    /// Subscribes to the chat's events (subscribe before acting, then wait on the stream).
    pub async fn events(&self, id: &str) -> EventStream {
        EventStream::connect(
            &self.client,
            &self.url(&format!("/v1/chats/{id}/events")),
            &self.token,
        )
        .await
    }

    /// Sends the chat's first message, approves the plan it gets and waits for the executor's
    /// turn to end; the events it saw are returned.
    pub async fn plan_approve_and_run(&self, id: &str, content: &str) -> EventStream {
        let mut events = self.events(id).await;
        self.post(&format!("/v1/chats/{id}/messages"), serde_json::json!({"content": content}))
            .await;
        events.wait_for_phase("awaiting_approval").await;
        self.post(&format!("/v1/chats/{id}/plan/approve"), serde_json::json!(null)).await;
        events.wait_for_phase("idle").await;
        events
    }
}

/// Runs `git ARGS…` in `dir` as a user of that repository would (a fixed identity); its
/// stdout. Panics with git's stderr when it fails.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The first line of the child's stdout ("" when it exited first).
/// The first line `serve` printed on stdout ("listening on …"), or "" when it exited first.
pub fn first_line(child: &mut Child) -> String {
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    line
}

/// A `preflight serve` process on `home`, its stdout piped.
pub fn spawn(home: &Path, stderr: Stdio) -> Child {
    spawn_with_env(home, stderr, &[])
}

fn spawn_with_env(home: &Path, stderr: Stdio, env: &[(&str, &str)]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_preflight"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env("PREFLIGHT_HOME", home)
        .env("RUST_LOG", "warn")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .expect("preflight serve starts")
}

impl Drop for Serve {
    fn drop(&mut self) {
        self.child.kill().ok();
        self.child.wait().ok();
    }
}

/// The filesystem MCP server set-up installed (for tests that check it directly).
pub fn fs_server() -> PathBuf {
    std::env::var_os("PREFLIGHT_FS_SERVER").map(PathBuf::from).unwrap_or_else(|| {
        Path::new(env!("CARGO_MANIFEST_DIR")).join(
            "../../runtime/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js",
        )
    })
}
