//! `preflight-conformance-client <server-url>`: the program the MCP conformance suite
//! (`@modelcontextprotocol/conformance`) starts for each client scenario, with the scenario
//! named in `MCP_CONFORMANCE_SCENARIO` and its data in `MCP_CONFORMANCE_CONTEXT`.
//!
//! It is not a second client: it writes the server into a fresh data folder's `mcp.json`
//! and drives Preflight's own `McpHost` as a chat would. The host connects (Streamable
//! HTTP), and when the server wants authorization the program signs in through the host's
//! real sign-in: it plays the browser, opening the authorization URL and following the
//! authorization server's redirect back to the host's loopback port. Then it lists the
//! tools and calls them (the scenario's own calls when the context names some), signing
//! in again when a call needs more scopes (step-up), at most [`MAX_SIGN_INS`] times. The
//! scenario's questions (elicitation) are answered as a user who accepts the form as
//! shown, defaults filled in.

use std::sync::Arc;
use std::time::{Duration, Instant};

use preflight_mcp::{
    Answer, Asker, ClientIdentity, McpHost, McpOptions, Profile, Question, SignInState, TokenVault,
};
use serde_json::{json, Map, Value};
use tokio_util::sync::CancellationToken;

/// The server's name in `mcp.json` (models would see `mcp_conformance_<tool>`).
const SERVER: &str = "conformance";
const PREFIX: &str = "mcp_conformance_";
/// The client ID metadata document the suite's authorization servers accept.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";
/// Sign-ins one run may do: the first, and step-ups.
const MAX_SIGN_INS: usize = 3;

type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() {
    let Some(url) = std::env::args().nth(1) else {
        eprintln!("usage: preflight-conformance-client <server-url>");
        std::process::exit(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let context: Value = std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|text| serde_json::from_str(&text).ok())
        .unwrap_or(Value::Null);
    eprintln!("scenario `{scenario}` against {url}");
    match run(&url, &context).await {
        Ok(()) => eprintln!("done"),
        Err(error) => {
            eprintln!("failed: {error}");
            std::process::exit(1);
        }
    }
}

async fn run(url: &str, context: &Value) -> Result<(), Failure> {
    let home = tempfile::tempdir()?;
    std::fs::write(home.path().join("mcp.json"), mcp_json(url, context).to_string())?;
    let mut config = McpOptions::new(home.path(), "/nonexistent/server-filesystem/index.js");
    config.tokens = Some(TokenVault::system());
    config.client_identity = ClientIdentity { metadata_url: Some(CLIENT_METADATA_URL.into()) };
    config.start_timeout = Duration::from_secs(20);
    config.call_timeout = Duration::from_secs(20);
    let host = McpHost::start(config)?;
    let outcome = exercise(&host, context).await;
    let _ = host.sign_out(SERVER).await;
    host.shutdown().await;
    outcome
}

/// The scenario's server, with the pre-registered client the context names, if any.
fn mcp_json(url: &str, context: &Value) -> Value {
    let mut entry = json!({"type": "http", "url": url});
    let text = |key: &str, alias: &str| {
        context.get(key).or_else(|| context.get(alias)).and_then(Value::as_str).map(str::to_owned)
    };
    if let Some(client_id) = text("client_id", "clientId") {
        let mut oauth = json!({"clientId": client_id});
        if let Some(secret) = text("client_secret", "clientSecret") {
            oauth["clientSecret"] = json!(secret);
        }
        entry["oauth"] = oauth;
    }
    json!({"mcpServers": {SERVER: entry}})
}

async fn exercise(host: &McpHost, context: &Value) -> Result<(), Failure> {
    let mut sign_ins = 0;
    let tools = loop {
        let set = host.tools(Profile::Execution, None).await?;
        let ours = set.unavailable.iter().find(|missing| missing.server == SERVER);
        match ours.map(|missing| &missing.error) {
            None => break set.tools,
            Some(preflight_mcp::McpError::SignInRequired { .. }) if sign_ins < MAX_SIGN_INS => {
                sign_ins += 1;
                sign_in(host).await?;
            }
            Some(error) => return Err(error.to_string().into()),
        }
    };
    let calls = planned_calls(&tools, context);
    eprintln!("{} tools; calling {}", tools.len(), calls.len());
    let asker: Arc<dyn Asker> = Arc::new(AcceptAsShown);
    for (name, arguments) in calls {
        loop {
            let output = host
                .call_asking(
                    Profile::Execution,
                    None,
                    &name,
                    arguments.clone(),
                    &CancellationToken::new(),
                    Some(Arc::clone(&asker)),
                )
                .await;
            eprintln!("{name}: {}", output.content.chars().take(300).collect::<String>());
            let wants_sign_in = output.is_error && output.content.contains("has to sign in");
            if !wants_sign_in {
                break;
            }
            if sign_ins >= MAX_SIGN_INS {
                eprintln!("giving up on `{name}` after {sign_ins} sign-ins");
                return Ok(());
            }
            sign_ins += 1;
            sign_in(host).await?;
        }
    }
    Ok(())
}

/// The host's sign-in, with this program as the browser.
async fn sign_in(host: &McpHost) -> Result<(), Failure> {
    let authorization_url = host.sign_in(SERVER).await?;
    eprintln!("signing in: {authorization_url}");
    let browser = reqwest::Client::builder().timeout(Duration::from_secs(20)).build()?;
    let landed = browser.get(&authorization_url).send().await?;
    eprintln!("the browser landed on {} ({})", landed.url(), landed.status());
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        match host.sign_in_state(SERVER) {
            Some(SignInState::SignedIn) => return Ok(()),
            Some(SignInState::Failed { error }) => return Err(error.into()),
            _ if Instant::now() > deadline => return Err("the sign-in did not finish".into()),
            _ => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    }
}

/// The context's `toolCalls` when it has some, else each tool once with arguments made
/// from its schema.
fn planned_calls(
    tools: &[preflight_protocol::tool::ToolSpec],
    context: &Value,
) -> Vec<(String, Value)> {
    let listed = context.get("toolCalls").or_else(|| context.get("tool_calls"));
    if let Some(Value::Array(calls)) = listed {
        return calls
            .iter()
            .filter_map(|call| {
                let name = call.get("name")?.as_str()?;
                let arguments = call.get("arguments").cloned().unwrap_or_else(|| json!({}));
                Some((format!("{PREFIX}{name}"), arguments))
            })
            .collect();
    }
    tools
        .iter()
        .filter(|tool| tool.name.starts_with(PREFIX))
        .map(|tool| (tool.name.clone(), arguments_for(&tool.input_schema)))
        .collect()
}

/// Plausible arguments for a schema: numbers count up from 2, strings say "test".
fn arguments_for(schema: &Value) -> Value {
    let mut arguments = Map::new();
    let mut number = 2;
    let properties = schema.get("properties").and_then(Value::as_object);
    for (name, field) in properties.into_iter().flatten() {
        let value = match field.get("type").and_then(Value::as_str) {
            Some("number" | "integer") => {
                number += 1;
                json!(number - 1)
            }
            Some("boolean") => json!(true),
            Some("array") => json!([]),
            Some("object") => json!({}),
            _ => json!("test"),
        };
        arguments.insert(name.clone(), value);
    }
    Value::Object(arguments)
}

/// A user who accepts each form as shown: the defaults filled in, nothing changed.
struct AcceptAsShown;

#[async_trait::async_trait]
impl Asker for AcceptAsShown {
    async fn ask(&self, question: Question) -> Answer {
        eprintln!("asked by {}: accepting the defaults", question.server());
        Answer::Accept { content: question.defaults() }
    }
}
