//! The settings screen's side of the host, in one place: how the configured servers stand
//! (each started instance's state), a restart, a probe that starts an entry on its own, lists
//! its tools and stops it again without touching the servers chats use, and signing in to and
//! out of remote servers (the flow is `remote/auth.rs`): the last `WWW-Authenticate`
//! challenge each server sent (on `initialize`, or on a call that needed more scopes:
//! step-up), the sign-in in progress, and the restart that makes the next use carry the new
//! tokens.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::oneshot;

use crate::config::{Remote, ServerEntry};
use crate::connection::{self, StartLimits};
use crate::connections::Request;
use crate::error::McpError;
use crate::host::McpHost;
use crate::key::ServerKey;
use crate::live::RemoteTool;
use crate::options::load_servers;
use crate::remote::{self, begin_sign_in, Tokens};
use crate::status::{ProbedTool, ServerStatus, SignInState};
use crate::target::Target;

impl McpHost {
    /// Every started instance, by server then workspace.
    pub async fn status(&self) -> Result<Vec<ServerStatus>, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Status { reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// Stops every instance of `server` (and forgets a failed start): the next use starts
    /// it afresh. Returns how many instances there were.
    pub async fn restart(&self, server: &str) -> Result<usize, McpError> {
        let (reply, answer) = oneshot::channel();
        self.send(Request::Restart { server: server.to_owned(), reply }).await?;
        answer.await.map_err(|_| McpError::Stopped)
    }

    /// Starts `entry` on its own (a server using `${workspace}` gets an empty scratch
    /// folder), lists its tools, and stops it. The servers chats use are not touched.
    pub async fn probe(&self, entry: &ServerEntry) -> Result<Vec<ProbedTool>, McpError> {
        if let Some(error) = entry.unusable() {
            return Err(error);
        }
        let scratch =
            std::env::temp_dir().join(format!("preflight-probe-{}", uuid::Uuid::new_v4()));
        let workspace = entry.uses_workspace().then(|| scratch.clone());
        if let Some(folder) = &workspace {
            std::fs::create_dir_all(folder).map_err(|error| McpError::Workspace {
                path: folder.clone(),
                message: error.to_string(),
            })?;
        }
        let probed = self.probe_in(entry, workspace.clone()).await;
        if workspace.is_some() {
            let _ = std::fs::remove_dir_all(&scratch);
        }
        probed
    }

    async fn probe_in(
        &self,
        entry: &ServerEntry,
        workspace: Option<PathBuf>,
    ) -> Result<Vec<ProbedTool>, McpError> {
        let Some(target) = Target::of(entry, workspace.as_deref(), self.base()) else {
            let message = "it needs a workspace".to_owned();
            return Err(McpError::Spawn { server: entry.name.clone(), message });
        };
        let config = self.options();
        let limits = StartLimits {
            start_timeout: config.start_timeout,
            max_message_bytes: config.max_message_bytes,
            tokens: config.tokens.clone(),
        };
        let key = ServerKey { server: entry.name.as_str().into(), workspace };
        let started = connection::start(key, entry.class, target, 0, limits).await?;
        let tools = started.live.tools.iter().map(RemoteTool::probed).collect();
        started.stop(config.shutdown_grace).await;
        Ok(tools)
    }

    /// Starts signing in to the remote server `server`; returns the page to open in the
    /// browser. When the browser comes back the tokens are stored and the server's running
    /// instances are restarted, so the next use is signed in.
    pub async fn sign_in(&self, server: &str) -> Result<String, McpError> {
        let (remote, tokens) = self.remote_of(server)?;
        let challenge = match self.sign_ins().take_challenge(server) {
            Some(challenge) => Some(challenge),
            None => self.probe_challenge(server, &remote).await,
        };
        let identity = &self.options().client_identity;
        let started = begin_sign_in(server, &remote, tokens, challenge, identity).await?;
        let url = started.authorization_url.clone();
        let pending = SignInState::Pending { authorization_url: url.clone() };
        self.sign_ins().set(server, pending);
        let (host, name) = (self.clone(), server.to_owned());
        tokio::spawn(async move {
            let outcome = started.done.await.unwrap_or(Err(McpError::Stopped));
            let state = match outcome {
                Ok(()) => {
                    tracing::info!(server = %name, "signed in");
                    let _ = host.restart(&name).await;
                    SignInState::SignedIn
                }
                Err(error) => {
                    tracing::warn!(server = %name, "{error}");
                    SignInState::Failed { error: error.to_string() }
                }
            };
            host.sign_ins().set(&name, state);
        });
        Ok(url)
    }

    /// The sign-in of `server`: in progress, finished, failed; `None` when none was started
    /// since the host started.
    pub fn sign_in_state(&self, server: &str) -> Option<SignInState> {
        self.sign_ins().state(server)
    }

    /// Whether tokens for `server` are stored.
    pub async fn signed_in(&self, server: &str) -> bool {
        match self.remote_of(server) {
            Ok((_, tokens)) => tokens.present().await,
            Err(_) => false,
        }
    }

    /// Forgets `server`'s tokens and restarts it; false when there were none.
    pub async fn sign_out(&self, server: &str) -> Result<bool, McpError> {
        let (_, tokens) = self.remote_of(server)?;
        let failed = |message: String| McpError::SignIn { server: server.to_owned(), message };
        let removed = tokens.forget().await.map_err(failed)?;
        self.sign_ins().forget(server);
        self.restart(server).await?;
        Ok(removed)
    }

    fn remote_of(&self, server: &str) -> Result<(Remote, Tokens), McpError> {
        let failed = |message: &str| McpError::SignIn {
            server: server.to_owned(),
            message: message.to_owned(),
        };
        let servers = load_servers(self.options())?;
        let entry = servers.iter().find(|entry| entry.name == server);
        let entry = entry.ok_or_else(|| failed("there is no such server in mcp.json"))?;
        let remote =
            entry.remote.clone().ok_or_else(|| failed("it is not a remote (`url`) server"))?;
        let vault = self.options().tokens.as_ref();
        let vault = vault.ok_or_else(|| failed("this Preflight has no key store for tokens"))?;
        let tokens = vault.tokens(server, &remote.url);
        Ok((remote, tokens))
    }

    /// The challenge of an unauthenticated `initialize`; `None` when the server lets it
    /// through (discovery then starts from its well-known metadata).
    async fn probe_challenge(&self, server: &str, remote: &Remote) -> Option<String> {
        let max_message_bytes = self.options().max_message_bytes;
        let name: Arc<str> = server.into();
        match remote::connect(&name, remote, max_message_bytes, None).await {
            Ok((service, _)) => {
                let _ = service.cancel().await;
                None
            }
            Err(McpError::SignInRequired { challenge, .. }) => Some(challenge),
            Err(_) => None,
        }
    }
}
