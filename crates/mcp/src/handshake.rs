//! The MCP handshake every server goes through, whatever carries it (a child's stdio, HTTP):
//! `initialize`, then `tools/list`, and what a 401/403 on the way means.

use std::sync::Arc;

use rmcp::model::{ProtocolVersion, Tool};
use rmcp::service::RunningService;
use rmcp::transport::IntoTransport;
use rmcp::{RoleClient, ServiceExt};

use crate::client::HostClient;
use crate::error::McpError;

/// The rmcp service and the tools it listed.
pub(crate) type Handshake = (RunningService<RoleClient, HostClient>, Vec<Tool>);

/// `initialize` and `tools/list` over `transport`.
pub(crate) async fn handshake<T, E, A>(
    server: &Arc<str>,
    transport: T,
) -> Result<Handshake, McpError>
where
    T: IntoTransport<RoleClient, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let failed = |message: String| McpError::Initialize { server: server.to_string(), message };
    let client = HostClient::new(server.clone(), ProtocolVersion::LATEST_WITH_INITIALIZE);
    let service =
        client.serve(transport).await.map_err(|error| match sign_in_needed(server, &error) {
            Some(needed) => needed,
            None => failed(error.to_string()),
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

/// [`McpError::SignInRequired`] when `initialize` failed on a 401/403.
fn sign_in_needed(server: &str, error: &rmcp::service::ClientInitializeError) -> Option<McpError> {
    let challenge = error.auth_challenge()?;
    Some(McpError::SignInRequired { server: server.to_owned(), challenge: challenge.to_owned() })
}
