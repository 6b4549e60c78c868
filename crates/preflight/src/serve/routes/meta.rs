//! The routes that need no token: health and the OpenAPI document.

use std::sync::Arc;

use axum::extract::Extension;
use axum::Json;

use crate::serve::answers::Health;

/// The OpenAPI document as served, made once when the server starts.
#[derive(Clone)]
pub struct Document(pub Arc<serde_json::Value>);

#[utoipa::path(get, path = "/v1/health", tag = "meta",
    responses((status = 200, description = "The server runs", body = Health)))]
pub async fn health() -> Json<Health> {
    Json(Health { ok: true, version: env!("CARGO_PKG_VERSION").to_owned() })
}

#[utoipa::path(get, path = "/v1/openapi.json", tag = "meta",
    responses((status = 200, description = "This document (OpenAPI 3.1)", body = Object)))]
pub async fn openapi_document(Extension(document): Extension<Document>) -> Json<serde_json::Value> {
    Json(document.0.as_ref().clone())
}
