//! Signing in to remote servers (MCP authorization: OAuth 2.1 with PKCE), by rmcp's OAuth
//! support: protected-resource and authorization-server metadata discovery from the
//! server's `WWW-Authenticate`, dynamic client registration, a client ID metadata document
//! when one is configured and the server supports it, a pre-registered client from
//! `mcp.json`, the scopes the challenge names, refresh.
//!
//! - **Tokens** live in the OS key store beside the API keys (Secret Service, else the
//!   kernel keyring: `config::keys`), filed under `mcp-oauth:<server>@<url>`; never in
//!   SQLite, `mcp.json` or a log. [`Tokens`] is rmcp's `CredentialStore` over them.
//! - **The redirect** comes back to a loopback port opened for that one sign-in
//!   (`http://127.0.0.1:<port>/callback`); the page the browser shows says what happened.
//!   A sign-in not finished within [`SIGN_IN_WINDOW`] fails.

use std::sync::Arc;
use std::time::Duration;

use preflight_llm::ApiKey;
use preflight_llm::{KernelKeyring, KeyStore, Lookup, SecretService};
use rmcp::transport::auth::{
    AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationRequest, CredentialStore,
    OAuthState, StoredCredentials, WWWAuthenticateParams,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use crate::config::Remote;
use crate::error::McpError;
use crate::remote::http::install_crypto;

/// How long the user has to finish signing in in the browser.
pub const SIGN_IN_WINDOW: Duration = Duration::from_secs(600);

/// The key stores tokens are kept in, asked in order.
#[derive(Clone)]
pub struct TokenVault {
    stores: Arc<Vec<Box<dyn KeyStore>>>,
}

impl std::fmt::Debug for TokenVault {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names: Vec<_> = self.stores.iter().map(|store| store.name()).collect();
        f.debug_struct("TokenVault").field("stores", &names).finish()
    }
}

impl PartialEq for TokenVault {
    fn eq(&self, other: &TokenVault) -> bool {
        Arc::ptr_eq(&self.stores, &other.stores)
    }
}

impl Eq for TokenVault {}

impl TokenVault {
    /// The Secret Service, then the kernel keyring (as for API keys).
    pub fn system() -> TokenVault {
        TokenVault::new(vec![Box::new(SecretService), Box::new(KernelKeyring)])
    }

    pub fn new(stores: Vec<Box<dyn KeyStore>>) -> TokenVault {
        TokenVault { stores: Arc::new(stores) }
    }

    /// The tokens of `server` at `url` (a changed URL is a different account).
    pub fn tokens(&self, server: &str, url: &str) -> Tokens {
        Tokens { vault: self.clone(), account: format!("mcp-oauth:{server}@{url}") }
    }
}

/// One server's stored OAuth credentials; rmcp loads, saves (after the code exchange and
/// each refresh) and clears them.
#[derive(Clone)]
pub struct Tokens {
    vault: TokenVault,
    account: String,
}

impl Tokens {
    fn read(&self) -> Result<Option<String>, String> {
        let mut unavailable = Vec::new();
        for store in self.vault.stores.iter() {
            match store.get(&self.account) {
                Lookup::Found(key) => return Ok(Some(key.expose().to_owned())),
                Lookup::NoEntry => {}
                Lookup::Unavailable(why) => unavailable.push(format!("{}: {why}", store.name())),
            }
        }
        if unavailable.len() == self.vault.stores.len() && !unavailable.is_empty() {
            return Err(format!("no key store is available ({})", unavailable.join("; ")));
        }
        Ok(None)
    }

    fn write(&self, text: &str) -> Result<(), String> {
        let mut failures = Vec::new();
        for store in self.vault.stores.iter() {
            match store.set(&self.account, &ApiKey::new(text)) {
                Ok(()) => return Ok(()),
                Err(error) => failures.push(format!("{}: {error}", store.name())),
            }
        }
        Err(format!("the tokens could not be stored ({})", failures.join("; ")))
    }

    fn remove(&self) -> Result<bool, String> {
        let mut removed = false;
        for store in self.vault.stores.iter() {
            if let Lookup::Unavailable(_) = store.get(&self.account) {
                continue;
            }
            removed |= store.delete(&self.account).map_err(|error| error.to_string())?;
        }
        Ok(removed)
    }

    /// Whether tokens are stored (key-store lookups block: D-Bus).
    pub async fn present(&self) -> bool {
        let tokens = self.clone();
        tokio::task::spawn_blocking(move || tokens.read().ok().flatten().is_some())
            .await
            .unwrap_or(false)
    }

    /// Forgets the tokens; false when there were none.
    pub(crate) async fn forget(&self) -> Result<bool, String> {
        let tokens = self.clone();
        tokio::task::spawn_blocking(move || tokens.remove())
            .await
            .map_err(|error| error.to_string())?
    }

    /// rmcp's manager for `url` with these tokens loaded, or `None` when none are stored.
    pub(crate) async fn manager(
        &self,
        server: &str,
        url: &str,
    ) -> Result<Option<AuthorizationManager>, McpError> {
        if !self.present().await {
            return Ok(None);
        }
        let failed = |error: AuthError| McpError::SignIn {
            server: server.to_owned(),
            message: error.to_string(),
        };
        install_crypto();
        let mut manager = AuthorizationManager::new(url).await.map_err(failed)?;
        manager.set_credential_store(self.clone());
        match manager.initialize_from_store().await.map_err(failed)? {
            true => Ok(Some(manager)),
            false => Ok(None),
        }
    }

    async fn blocking<T: Send + 'static>(
        &self,
        work: impl FnOnce(Tokens) -> Result<T, String> + Send + 'static,
    ) -> Result<T, AuthError> {
        let tokens = self.clone();
        tokio::task::spawn_blocking(move || work(tokens))
            .await
            .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?
            .map_err(AuthError::CredentialStoreError)
    }
}

#[async_trait::async_trait]
impl CredentialStore for Tokens {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let Some(text) = self.blocking(|tokens| tokens.read()).await? else { return Ok(None) };
        // Unreadable credentials (another version's format) count as none: sign in again.
        Ok(serde_json::from_str(&text).ok())
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let text = serde_json::to_string(&credentials)
            .map_err(|error| AuthError::CredentialStoreError(error.to_string()))?;
        self.blocking(move |tokens| tokens.write(&text)).await
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.blocking(|tokens| tokens.remove().map(drop)).await
    }
}

/// What the client says about itself when signing in.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClientIdentity {
    /// An https URL of a client ID metadata document, used where the authorization server
    /// supports them (else dynamic registration).
    pub metadata_url: Option<String>,
}

/// A sign-in waiting for the browser: open `authorization_url`; `done` tells how it ended.
pub struct SignInStarted {
    pub authorization_url: String,
    pub done: oneshot::Receiver<Result<(), McpError>>,
}

/// Starts signing in to `remote`: discovery from `challenge` (the server's
/// `WWW-Authenticate`; without one, from its well-known metadata), registration, and the
/// authorization URL; the code exchange happens when the browser comes back.
pub(crate) async fn begin(
    server: &str,
    remote: &Remote,
    tokens: Tokens,
    challenge: Option<String>,
    identity: &ClientIdentity,
) -> Result<SignInStarted, McpError> {
    let failed = |message: String| McpError::SignIn { server: server.to_owned(), message };
    let listener = TcpListener::bind(("127.0.0.1", 0))
        .await
        .map_err(|error| failed(format!("no loopback port for the redirect: {error}")))?;
    let port = listener.local_addr().map_err(|error| failed(error.to_string()))?.port();
    let redirect = format!("http://127.0.0.1:{port}/callback");
    install_crypto();
    let mut manager =
        AuthorizationManager::new(remote.url.as_str()).await.map_err(|e| failed(e.to_string()))?;
    // Signed in already and asked for more (step-up): what was granted is kept.
    let granted = tokens.load().await.ok().flatten().map(|c| c.granted_scopes).unwrap_or_default();
    manager.set_credential_store(tokens);
    let mut request = AuthorizationRequest::new(redirect.as_str()).with_client_name("Preflight");
    if let Some(client) = &remote.client {
        let lookup = |name: &str| std::env::var(name).ok();
        request = request.with_preregistered_client(client.client_id.as_str());
        if let Some(secret) = remote.resolved_secret(&lookup).map_err(failed)? {
            request = request.with_client_secret(secret);
        }
    } else if let Some(url) = &identity.metadata_url {
        request = request.with_client_metadata_url(url.as_str());
    }
    if let Some(scopes) = step_up_scopes(&granted, remote, challenge.as_deref()) {
        request = request.with_scopes(scopes);
    } else if !remote.scopes.is_empty() {
        request = request.with_scopes(remote.scopes.iter().map(String::as_str));
    }
    if let Some(challenge) = challenge.filter(|c| !c.is_empty()) {
        request = request.with_challenge(challenge);
    }
    let mut state = OAuthState::Unauthorized(manager);
    state.start_authorization(request).await.map_err(|e| failed(e.to_string()))?;
    let authorization_url =
        state.get_authorization_url().await.map_err(|e| failed(e.to_string()))?;
    let (report, done) = oneshot::channel();
    let server = server.to_owned();
    tokio::spawn(async move {
        let outcome = tokio::time::timeout(SIGN_IN_WINDOW, finish(&server, listener, state)).await;
        let outcome = outcome.unwrap_or_else(|_| {
            Err(McpError::SignIn {
                server: server.clone(),
                message: format!(
                    "it was not finished within {} minutes",
                    SIGN_IN_WINDOW.as_secs() / 60
                ),
            })
        });
        let _ = report.send(outcome);
    });
    Ok(SignInStarted { authorization_url, done })
}

/// The scopes of a re-authorization whose challenge names scopes while some were granted
/// already: their union with the entry's own (SEP-2350), so that signing in for one more
/// scope does not lose the ones the earlier calls needed. `None` for a first sign-in, or a
/// challenge that names no scope (rmcp then chooses from the server's metadata).
fn step_up_scopes(
    granted: &[String],
    remote: &Remote,
    challenge: Option<&str>,
) -> Option<Vec<String>> {
    let base = url::Url::parse(&remote.url).ok()?;
    let challenged = WWWAuthenticateParams::parse(challenge?, &base).scope?;
    if granted.is_empty() {
        return None;
    }
    let mut scopes: Vec<String> = Vec::new();
    let all = remote.scopes.iter().chain(granted).map(String::as_str);
    for scope in all.chain(challenged.split_whitespace()) {
        if !scopes.iter().any(|known| known == scope) {
            scopes.push(scope.to_owned());
        }
    }
    Some(scopes)
}

/// Waits for the browser's redirect, answers it with a page, exchanges the code.
async fn finish(
    server: &str,
    listener: TcpListener,
    mut state: OAuthState,
) -> Result<(), McpError> {
    let failed = |message: String| McpError::SignIn { server: server.to_owned(), message };
    loop {
        let (mut stream, _) = listener.accept().await.map_err(|e| failed(e.to_string()))?;
        let Some(target) = read_request_target(&mut stream).await else { continue };
        if !target.starts_with("/callback") {
            let _ = stream
                .write_all(page(404, "Not found", "This is Preflight's sign-in port.").as_bytes())
                .await;
            continue;
        }
        let url = format!("http://127.0.0.1{target}");
        let outcome = match callback_of(&url) {
            Ok(callback) => state
                .handle_callback_with_issuer(
                    &callback.code,
                    &callback.csrf_token,
                    callback.issuer.as_deref(),
                )
                .await
                .map_err(|error| error.to_string()),
            Err(message) => Err(message),
        };
        let body = match &outcome {
            Ok(()) => page(
                200,
                "Signed in",
                &format!("Preflight is signed in to {server}. You can close this tab."),
            ),
            Err(message) => {
                page(400, "Sign-in failed", &format!("Signing in to {server} failed: {message}"))
            }
        };
        let _ = stream.write_all(body.as_bytes()).await;
        let _ = stream.shutdown().await;
        return outcome.map_err(failed);
    }
}

/// The callback's code and state, or the authorization server's error.
fn callback_of(url: &str) -> Result<AuthorizationCallback, String> {
    let parsed = url::Url::parse(url).map_err(|error| error.to_string())?;
    if let Some((_, error)) = parsed.query_pairs().find(|(key, _)| key == "error") {
        let detail = parsed.query_pairs().find(|(key, _)| key == "error_description");
        let detail = detail.map(|(_, text)| format!(": {text}")).unwrap_or_default();
        return Err(format!("the authorization server said `{error}`{detail}"));
    }
    AuthorizationCallback::from_redirect_url(url).map_err(|error| error.to_string())
}

/// The target of one HTTP request line (`GET /callback?… HTTP/1.1`), reading at most 16 KiB.
async fn read_request_target(stream: &mut tokio::net::TcpStream) -> Option<String> {
    let mut buffer = Vec::with_capacity(2048);
    let mut chunk = [0u8; 2048];
    while !buffer.windows(4).any(|w| w == b"\r\n\r\n") && buffer.len() < 16 * 1024 {
        let read = tokio::time::timeout(Duration::from_secs(10), stream.read(&mut chunk))
            .await
            .ok()?
            .ok()?;
        if read == 0 {
            break;
        }
        buffer.extend_from_slice(&chunk[..read]);
    }
    let text = String::from_utf8_lossy(&buffer);
    let mut parts = text.lines().next()?.split_whitespace();
    (parts.next()? == "GET").then_some(())?;
    parts.next().map(str::to_owned)
}

/// A small, inert HTML page (the texts are escaped).
fn page(status: u16, title: &str, text: &str) -> String {
    let escape = |s: &str| s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;");
    let body = format!(
        "<!doctype html><meta charset=utf-8><title>{}</title><h1>{}</h1><p>{}</p>",
        escape(title),
        escape(title),
        escape(text)
    );
    format!(
        "HTTP/1.1 {status} {title}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\n\
         Content-Security-Policy: default-src 'none'\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
}
