//! `preflight serve`: the headless HTTP + SSE adapter of DESIGN §9 over the engine.
//!
//! **Boundary:** no business logic here; handlers parse, call the engine, shape the answer.
//! Loopback only, every route but [`PUBLIC_PATHS`] behind the bearer token. Every answer
//! that is not a success is in the error shape, the framework's own refusals included.

mod answers;
mod body;
mod error;
mod extract;
mod openapi;
mod query;
mod routes;
mod stream;
mod token;

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{bail, Context};
use axum::extract::{DefaultBodyLimit, Extension, Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::Router;
use preflight_engine::lifecycle::{ApiError, Engine, ErrorCode};

use error::HttpError;

/// The routes anyone on loopback may call: health, and the API's own description (it holds
/// no data, and fuzzers and client generators load it before they have a token).
pub const PUBLIC_PATHS: [&str; 2] = ["/v1/health", "/v1/openapi.json"];

#[derive(Clone)]
pub struct AppState {
    engine: Engine,
    token: Arc<str>,
}

/// Binds `addr` (loopback only), writes the token file, prints the listening line as the
/// first line of stdout, and serves until Ctrl-C or SIGTERM.
pub async fn serve(
    engine: Engine,
    token_path: &std::path::Path,
    addr: SocketAddr,
) -> anyhow::Result<()> {
    if !addr.ip().is_loopback() {
        bail!("refusing to listen on {addr}: the headless API binds loopback addresses only");
    }
    let token: Arc<str> = token::load_or_create(token_path)?.into();
    let listener =
        tokio::net::TcpListener::bind(addr).await.with_context(|| format!("binding {addr}"))?;
    let local = listener.local_addr()?;
    let state = AppState { engine: engine.clone(), token };
    let app = app(state)?;
    println!("listening on http://{local}");
    use std::io::Write;
    std::io::stdout().flush()?;
    tracing::info!(%local, "serving the headless API");
    axum::serve(listener, app).with_graceful_shutdown(shutdown_signal()).await?;
    engine.shutdown().await;
    Ok(())
}

/// The routes and their document from one declaration (`routes::router`), then what every
/// request goes through: the token check, the body limit, the error-shaped fallbacks.
fn app(state: AppState) -> anyhow::Result<Router> {
    let (router, mut document) = routes::router().split_for_parts();
    openapi::complete(&mut document);
    let mut document =
        serde_json::to_value(&document).context("serialising the OpenAPI document")?;
    openapi::widen_unsigned(&mut document);
    Ok(router
        .fallback(routes::not_found)
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(middleware::from_fn_with_state(state.clone(), require_token))
        .layer(DefaultBodyLimit::max(extract::MAX_BODY_BYTES))
        .layer(Extension(routes::Document(Arc::new(document))))
        .with_state(state))
}

async fn require_token(State(state): State<AppState>, request: Request, next: Next) -> Response {
    if PUBLIC_PATHS.contains(&request.uri().path()) {
        return next.run(request).await;
    }
    let given = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(given) if token::matches(&state.token, given) => next.run(request).await,
        _ => HttpError::from(ApiError::new(
            ErrorCode::Unauthorized,
            "missing or wrong bearer token (see $PREFLIGHT_HOME/api-token)",
        ))
        .into_response(),
    }
}

async fn shutdown_signal() {
    let interrupt = tokio::signal::ctrl_c();
    let mut terminate =
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(signal) => signal,
            Err(_) => return interrupt.await.unwrap_or(()),
        };
    tokio::select! {
        _ = interrupt => {}
        _ = terminate.recv() => {}
    }
}
