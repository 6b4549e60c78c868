//! Remote servers: Streamable HTTP (and the older HTTP+SSE) with the entry's headers, and
//! signing in with OAuth. `connect` starts a session, `legacy_sse` is the 2024-11-05
//! transport, `http` and `redirect` the shared client (TLS, same-origin redirects), `auth`
//! the sign-in flow and the tokens in the key store.

mod auth;
mod connect;
mod http;
mod legacy_sse;
mod redirect;
mod stream_first;

pub(crate) use auth::begin as begin_sign_in;
pub use auth::{ClientIdentity, SignInStarted, TokenVault, Tokens, SIGN_IN_WINDOW};
pub(crate) use connect::connect;
