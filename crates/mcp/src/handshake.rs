//! The MCP handshake every server goes through, whatever carries it (a child's stdio, HTTP):
//! the lifecycle, then `tools/list`, and what a 401/403 on the way means.
//!
//! The lifecycle is negotiated, newest first ([`PREFERRED`]): `server/discover` asks for
//! 2026-07-28, the stateless revision (no `initialize`; each request carries the version,
//! the client's identity and capabilities in `_meta`, and over HTTP the
//! `MCP-Protocol-Version` and standard headers). A server of an older revision answers the
//! unknown method with a JSON-RPC error (over HTTP a 4xx), and the handshake falls back to
//! `initialize` on the same transport, offering 2025-11-25; the server may answer with an
//! older version it speaks (2025-06-18), which rmcp then uses. A server that ignores the
//! probe altogether is given [`rmcp`]'s discover timeout (10 s) before the fallback.

use std::sync::Arc;

use rmcp::model::{ProtocolVersion, Tool};
use rmcp::service::{ClientInitializeError, ClientLifecycleMode, ClientServiceExt, RunningService};
use rmcp::transport::Transport;
use rmcp::RoleClient;

use crate::client::HostClient;
use crate::discovery::Probe;
use crate::error::McpError;

/// The rmcp service and the tools it listed.
pub(crate) type Handshake = (RunningService<RoleClient, HostClient>, Vec<Tool>);

/// The revisions `server/discover` offers, in the order of preference.
pub(crate) const PREFERRED: [ProtocolVersion; 3] =
    [ProtocolVersion::V_2026_07_28, ProtocolVersion::V_2025_11_25, ProtocolVersion::V_2025_06_18];

/// How a connection starts: discovery of the stateless revision, else `initialize` with the
/// newest revision that has one.
fn lifecycle() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: PREFERRED.to_vec(),
        legacy_version: Some(ProtocolVersion::LATEST_WITH_INITIALIZE),
    }
}

/// The lifecycle (discovery or `initialize`) and `tools/list` over `transport`.
pub(crate) async fn handshake<T>(server: &Arc<str>, transport: T) -> Result<Handshake, McpError>
where
    T: Transport<RoleClient> + 'static,
{
    let failed = |message: String| McpError::Initialize { server: server.to_string(), message };
    let client = HostClient::new(server.clone(), ProtocolVersion::LATEST_WITH_INITIALIZE);
    let service =
        client.serve_with_lifecycle(Probe::new(transport), lifecycle()).await.map_err(|error| {
            match sign_in_needed(server, &error) {
                Some(needed) => needed,
                None => failed(reason(&error)),
            }
        })?;
    // A server may let `initialize` through and want authorization for its tools.
    let tools =
        service.peer().list_all_tools().await.map_err(|error| match error.auth_challenge() {
            Some(challenge) => McpError::SignInRequired {
                server: server.to_string(),
                challenge: challenge.to_owned(),
            },
            None => failed(format!("tools/list failed: {error}")),
        })?;
    Ok((service, tools))
}

/// What separates `initialize`'s reason from discovery's in a start failure's message.
pub(crate) const DISCOVERY_SAID: &str = " (after server/discover: ";

/// Why the lifecycle failed: when discovery told of an older server and `initialize` then
/// failed too, the reason is `initialize`'s (the words a 2025 server's refusal has always
/// had: `connect.rs` looks for its HTTP status), with discovery's after it.
fn reason(error: &ClientInitializeError) -> String {
    match error {
        ClientInitializeError::LegacyFallbackFailed { discover, fallback } => {
            format!("{fallback}{DISCOVERY_SAID}{discover})")
        }
        other => other.to_string(),
    }
}

/// [`McpError::SignInRequired`] when `initialize` failed on a 401/403.
fn sign_in_needed(server: &str, error: &ClientInitializeError) -> Option<McpError> {
    let challenge = error.auth_challenge()?;
    Some(McpError::SignInRequired { server: server.to_owned(), challenge: challenge.to_owned() })
}
