//! Remote servers over Streamable HTTP (rmcp's client transport: sessions, the GET event
//! stream, reconnection with `Last-Event-ID` and the server's `retry`), with the entry's
//! headers, and with the user's OAuth tokens when they signed in (`auth.rs`); the HTTP+SSE
//! transport of 2024-11-05 (`legacy_sse.rs`) for `"type": "sse"`, and as the fallback of an
//! untyped entry whose endpoint refuses the first POST.
//!
//! TLS and redirects are `http.rs`'s; `stream_first.rs` holds a session's requests until its
//! event stream is open.

use std::collections::HashMap;
use std::sync::Arc;

use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{AuthClient, StreamableHttpClientTransport};

use crate::config::{Remote, RemoteKind};
use crate::error::McpError;
use crate::handshake::{handshake, Handshake, DISCOVERY_SAID};
use crate::remote::auth::Tokens;
use crate::remote::http::http_client;
use crate::remote::legacy_sse::LegacySse;
use crate::remote::stream_first::StreamFirst;

/// Connects to `remote`, `initialize`s and lists its tools; signed-in `tokens` go with
/// every request (and are refreshed by rmcp when they expire).
pub(crate) async fn connect(
    server: &Arc<str>,
    remote: &Remote,
    max_message_bytes: usize,
    tokens: Option<Tokens>,
) -> Result<Handshake, McpError> {
    if remote.kind == RemoteKind::Sse {
        return connect_legacy(server, remote, max_message_bytes).await;
    }
    let config = transport_config(server, remote, max_message_bytes)?;
    let http = http_client(server)?;
    let manager = match tokens {
        Some(tokens) => tokens.manager(server, &remote.url).await?,
        None => None,
    };
    let modern = match manager {
        None => {
            let client = StreamFirst::new(http);
            handshake(server, StreamableHttpClientTransport::with_client(client, config)).await
        }
        Some(manager) => {
            let client = StreamFirst::new(AuthClient::new(http, manager));
            handshake(server, StreamableHttpClientTransport::with_client(client, config)).await
        }
    };
    // An entry without `"type"` may be an HTTP+SSE server: its endpoint refuses the POST
    // with a 4xx, and MCP's compatibility rule is to try the old transport's GET then.
    match modern {
        Err(McpError::Initialize { message, .. }) if !remote.typed && refused_post(&message) => {
            tracing::info!(server = %server, "no Streamable HTTP here; trying HTTP+SSE");
            connect_legacy(server, remote, max_message_bytes).await
        }
        other => other,
    }
}

/// Whether rmcp's start error is an HTTP 4xx status of the first POST (not a sign-in):
/// `initialize`'s own words, not those of the `server/discover` refusal that `handshake.rs`
/// adds after them (a 2025 server refuses discovery with a 400, then `initialize` may fail
/// for another reason, which must not send the entry to the old transport).
fn refused_post(message: &str) -> bool {
    let own = message.split(DISCOVERY_SAID).next().unwrap_or(message);
    ["404", "405", "400"].iter().any(|status| own.contains(status))
}

async fn connect_legacy(
    server: &Arc<str>,
    remote: &Remote,
    max_message_bytes: usize,
) -> Result<Handshake, McpError> {
    let config = transport_config(server, remote, max_message_bytes)?;
    let headers: reqwest::header::HeaderMap = config.custom_headers.into_iter().collect();
    let transport = LegacySse::connect(server.clone(), &remote.url, headers, max_message_bytes)
        .await
        .map_err(|message| McpError::Initialize { server: server.to_string(), message })?;
    handshake(server, transport).await
}

fn transport_config(
    server: &str,
    remote: &Remote,
    max_message_bytes: usize,
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
    config.max_json_response_size = max_message_bytes;
    config.max_sse_event_size = max_message_bytes;
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_initializes_own_refusal_sends_an_entry_to_the_old_transport() {
        let after = |initialize: &str| {
            format!("{initialize}{DISCOVERY_SAID}server/discover rejected with HTTP 400)")
        };
        assert!(refused_post(&after("Unexpected response: HTTP 405 Method Not Allowed")));
        assert!(!refused_post(&after("Unexpected response: HTTP 500 Internal Server Error")));
        assert!(!refused_post(&after("timed out")));
        assert!(refused_post("HTTP 404 Not Found"));
    }
}
