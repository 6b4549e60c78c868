//! Remote servers over Streamable HTTP (rmcp's client transport: sessions, the GET event
//! stream, reconnection with `Last-Event-ID` and the server's `retry`), with the entry's
//! headers, and with the user's OAuth tokens when they signed in (`auth.rs`); the HTTP+SSE
//! transport of 2024-11-05 (`legacy_sse.rs`) for `"type": "sse"`, and as the fallback of an
//! untyped entry whose endpoint refuses the first POST.
//!
//! TLS is rustls on the ring provider, installed once for the process
//! ([`install_crypto`]), with the platform's verifier and roots.

use std::collections::HashMap;
use std::sync::{Arc, Once};
use std::time::Duration;

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{AuthClient, StreamableHttpClientTransport};

use super::auth::Tokens;
use super::config::{Remote, RemoteKind};
use super::connection::{handshake, Handshake, StartLimits};
use super::error::McpError;
use super::redirect;

/// How long a TCP + TLS connect to a remote server may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Makes ring the process's rustls provider (reqwest 0.13 is built without one); a provider
/// installed before (by the embedder) is kept.
pub(crate) fn install_crypto() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

/// The HTTP client remote servers and sign-in use: redirects only within one origin.
pub(crate) fn http_client(server: &str) -> Result<reqwest013::Client, McpError> {
    install_crypto();
    let policy = reqwest013::redirect::Policy::custom(|attempt| {
        let verdict = match attempt.previous().first() {
            Some(first) => redirect::verdict(first, attempt.url(), attempt.previous().len()),
            None => Ok(()),
        };
        match verdict {
            Ok(()) => attempt.follow(),
            Err(why) => attempt.error(why),
        }
    });
    reqwest013::Client::builder()
        .redirect(policy)
        .connect_timeout(CONNECT_TIMEOUT)
        .user_agent(concat!("preflight/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|error| McpError::Spawn {
            server: server.to_owned(),
            message: format!("no HTTP client: {error}"),
        })
}

/// Connects to `remote`, `initialize`s and lists its tools; signed-in `tokens` go with
/// every request (and are refreshed by rmcp when they expire).
pub(crate) async fn connect(
    server: &Arc<str>,
    remote: &Remote,
    limits: &StartLimits,
    tokens: Option<Tokens>,
) -> Result<Handshake, McpError> {
    if remote.kind == RemoteKind::Sse {
        return connect_legacy(server, remote, limits).await;
    }
    let config = transport_config(server, remote, limits)?;
    let http = http_client(server)?;
    let manager = match tokens {
        Some(tokens) => tokens.manager(server, &remote.url).await?,
        None => None,
    };
    let modern = match manager {
        None => handshake(server, StreamableHttpClientTransport::with_client(http, config)).await,
        Some(manager) => {
            let client = AuthClient::new(http, manager);
            handshake(server, StreamableHttpClientTransport::with_client(client, config)).await
        }
    };
    // An entry without `"type"` may be an HTTP+SSE server: its endpoint refuses the POST
    // with a 4xx, and MCP's compatibility rule is to try the old transport's GET then.
    match modern {
        Err(McpError::Initialize { message, .. }) if !remote.typed && refused_post(&message) => {
            tracing::info!(server = %server, "no Streamable HTTP here; trying HTTP+SSE");
            connect_legacy(server, remote, limits).await
        }
        other => other,
    }
}

/// Whether rmcp's start error is an HTTP 4xx status of the first POST (not a sign-in).
fn refused_post(message: &str) -> bool {
    ["404", "405", "400"].iter().any(|status| message.contains(status))
}

async fn connect_legacy(
    server: &Arc<str>,
    remote: &Remote,
    limits: &StartLimits,
) -> Result<Handshake, McpError> {
    let config = transport_config(server, remote, limits)?;
    let headers: reqwest::header::HeaderMap = config.custom_headers.into_iter().collect();
    let transport = super::legacy_sse::LegacySse::connect(
        server.clone(),
        &remote.url,
        headers,
        limits.max_message_bytes,
    )
    .await
    .map_err(|message| McpError::Initialize { server: server.to_string(), message })?;
    handshake(server, transport).await
}

fn transport_config(
    server: &str,
    remote: &Remote,
    limits: &StartLimits,
) -> Result<StreamableHttpClientTransportConfig, McpError> {
    let bad = |message: String| McpError::Spawn { server: server.to_owned(), message };
    let lookup = |name: &str| std::env::var(name).ok();
    let mut headers = HashMap::new();
    for (name, value) in remote.resolved_headers(&lookup).map_err(bad)? {
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| bad(format!("header `{name}` is not a valid name")))?;
        let value = http::HeaderValue::from_str(&value)
            .map_err(|_| bad(format!("header `{name}` has a value HTTP cannot carry")))?;
        headers.insert(header, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(remote.url.as_str());
    config.custom_headers = headers;
    config.max_json_response_size = limits.max_message_bytes;
    config.max_sse_event_size = limits.max_message_bytes;
    Ok(config)
}

/// [`McpError::SignInRequired`] when `initialize` failed on a 401/403.
pub(crate) fn sign_in_needed(
    server: &str,
    error: &rmcp::service::ClientInitializeError,
) -> Option<McpError> {
    let challenge = error.auth_challenge()?;
    Some(McpError::SignInRequired { server: server.to_owned(), challenge: challenge.to_owned() })
}
