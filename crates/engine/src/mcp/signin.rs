//! Sign-in and sign-out of remote servers as the host offers them (the flow is `auth.rs`):
//! the last `WWW-Authenticate` challenge each server sent (on `initialize`, or on a call
//! that needed more scopes: step-up), the sign-in in progress, and the restart that makes
//! the next use carry the new tokens.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::auth::{self, Tokens};
use super::config::{load_servers, Remote};
use super::error::McpError;
use super::host::McpHost;

/// How a server's sign-in stands.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum SignInState {
    /// Waiting for the browser: `authorization_url` is the page to open.
    Pending {
        authorization_url: String,
    },
    SignedIn,
    Failed {
        error: String,
    },
}

/// What the host remembers per server.
#[derive(Default)]
pub(crate) struct SignIns {
    challenges: Mutex<HashMap<String, String>>,
    states: Mutex<HashMap<String, SignInState>>,
}

impl SignIns {
    pub(crate) fn note_challenge(&self, server: &str, challenge: &str) {
        if let Ok(mut challenges) = self.challenges.lock() {
            challenges.insert(server.to_owned(), challenge.to_owned());
        }
    }

    fn take_challenge(&self, server: &str) -> Option<String> {
        self.challenges.lock().ok()?.remove(server)
    }

    fn set(&self, server: &str, state: SignInState) {
        if let Ok(mut states) = self.states.lock() {
            states.insert(server.to_owned(), state);
        }
    }
}

impl McpHost {
    /// Starts signing in to the remote server `server`; returns the page to open in the
    /// browser. When the browser comes back the tokens are stored and the server's running
    /// instances are restarted, so the next use is signed in.
    pub async fn sign_in(&self, server: &str) -> Result<String, McpError> {
        let (remote, tokens) = self.remote_of(server)?;
        let challenge = match self.sign_ins().take_challenge(server) {
            Some(challenge) => Some(challenge),
            None => self.probe_challenge(server, &remote).await,
        };
        let identity = &self.config().client_identity;
        let started = auth::begin(server, &remote, tokens, challenge, identity).await?;
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
        self.sign_ins().states.lock().ok()?.get(server).cloned()
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
        if let Ok(mut states) = self.sign_ins().states.lock() {
            states.remove(server);
        }
        self.restart(server).await?;
        Ok(removed)
    }

    fn remote_of(&self, server: &str) -> Result<(Remote, Tokens), McpError> {
        let failed = |message: &str| McpError::SignIn {
            server: server.to_owned(),
            message: message.to_owned(),
        };
        let servers = load_servers(self.config())?;
        let entry = servers.iter().find(|entry| entry.name == server);
        let entry = entry.ok_or_else(|| failed("there is no such server in mcp.json"))?;
        let remote =
            entry.remote.clone().ok_or_else(|| failed("it is not a remote (`url`) server"))?;
        let vault = self.config().tokens.as_ref();
        let vault = vault.ok_or_else(|| failed("this Preflight has no key store for tokens"))?;
        let tokens = vault.tokens(server, &remote.url);
        Ok((remote, tokens))
    }

    /// The challenge of an unauthenticated `initialize`; `None` when the server lets it
    /// through (discovery then starts from its well-known metadata).
    async fn probe_challenge(&self, server: &str, remote: &Remote) -> Option<String> {
        let config = self.config();
        let limits = super::connection::StartLimits {
            start_timeout: config.start_timeout,
            max_message_bytes: config.max_message_bytes,
            tokens: None,
        };
        let name: Arc<str> = server.into();
        match super::remote::connect(&name, remote, &limits, None).await {
            Ok((service, _)) => {
                let _ = service.cancel().await;
                None
            }
            Err(McpError::SignInRequired { challenge, .. }) => Some(challenge),
            Err(_) => None,
        }
    }
}
