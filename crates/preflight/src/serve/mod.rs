//! `preflight serve`: the headless HTTP + SSE adapter of DESIGN §9 over the engine.
//!
//! **Boundary:** no business logic here; handlers parse, call the engine, shape the answer.
//! Loopback only, every route but `/v1/health` behind the bearer token.

mod body;
mod error;
mod routes;
mod token;

use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::{bail, Context};
use axum::extract::{Request, State};
use axum::http::header::AUTHORIZATION;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use preflight_engine::lifecycle::{ApiError, Engine, ErrorCode};

use error::HttpError;

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
    let app = app(state);
    println!("listening on http://{local}");
    use std::io::Write;
    std::io::stdout().flush()?;
    tracing::info!(%local, "serving the headless API");
    axum::serve(listener, app).with_graceful_shutdown(shutdown_signal()).await?;
    engine.shutdown().await;
    Ok(())
}

fn app(state: AppState) -> Router {
    let protected = routes::router(state.clone())
        .fallback(routes::not_found)
        .layer(middleware::from_fn_with_state(state, require_token));
    Router::new().route("/v1/health", get(health)).merge(protected)
}

async fn health() -> Json<serde_json::Value> {
    Json(serde_json::json!({"ok": true, "version": env!("CARGO_PKG_VERSION")}))
}

async fn require_token(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let given = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .map(str::trim);
    match given {
        Some(given) if token::matches(&state.token, given) => next.run(request).await,
        _ => HttpError(ApiError::new(
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
