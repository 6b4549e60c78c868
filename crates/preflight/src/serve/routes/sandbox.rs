//! The chat's code sandbox as the user acts on it: adopting a `.sandbox/venv` an earlier
//! Preflight made (DESIGN §11), at the user's explicit word.

use axum::extract::State;
use axum::Json;
use preflight_engine::lifecycle::SandboxView;
use preflight_engine::ChatId;
use serde::Deserialize;
use utoipa::ToSchema;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AdoptVenvBody {
    /// The user confirmed that this venv is to be used: required, and it must be `true`.
    #[schema(schema_with = only_true)]
    confirm: bool,
}

/// `confirm`'s schema: a boolean whose one valid value is `true` (`false` is a 400).
fn only_true() -> utoipa::openapi::schema::Object {
    utoipa::openapi::schema::ObjectBuilder::new()
        .schema_type(utoipa::openapi::schema::Type::Boolean)
        .enum_values(Some([true]))
        .description(Some("The user's confirmation: must be `true`."))
        .build()
}

#[utoipa::path(post, path = "/v1/chats/{id}/sandbox/venv/adopt", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = AdoptVenvBody, description = "`{\"confirm\": true}`: the user's confirmation"),
    responses(
        (status = 200, description = "The venv is recorded as the sandbox's own (or already was); the sandbox as it stands now", body = SandboxView),
        (status = 400, description = "`ERR_BAD_REQUEST`: no body, malformed JSON, `confirm` missing or not `true`", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_VENV_FOREIGN`: the venv is not one an earlier Preflight made (the message says why), or there is none (also a chat without a workspace or without Preflight's sandbox); nothing changed", body = ErrorBody),
    ))]
pub async fn adopt_venv(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<SandboxView>> {
    state.engine.require_chat(&id)?;
    let request: AdoptVenvBody = body::json(&bytes)?;
    Ok(Json(state.engine.adopt_venv(&id, request.confirm).await?))
}
