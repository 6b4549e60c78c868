//! The HTTP side every remote use shares: TLS is rustls on the ring provider, installed once
//! for the process ([`install_crypto`]), with the platform's verifier and roots; redirects
//! are followed only within one origin (`redirect.rs`).

use std::sync::Once;
use std::time::Duration;

use crate::error::McpError;
use crate::remote::redirect;

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
