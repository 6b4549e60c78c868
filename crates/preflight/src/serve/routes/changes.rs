//! The executor's requests to change the approved plan, and the user's answers (DESIGN §12).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::lifecycle::ChatView;
use preflight_engine::{ChangeId, ChatId};

use super::{accepted, Answer};
use crate::serve::answers::{Changes, ErrorBody};
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/plan/changes", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The change requests, oldest first, with their answers", body = Changes),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn plan_changes(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Changes>> {
    Ok(Json(Changes { changes: state.engine.plan_changes(&id)? }))
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/changes/{cid}/approve", tag = "plan",
    params(("id" = String, Path, description = "The chat's id"), ("cid" = String, Path, description = "The change's id")),
    responses(
        (status = 202, description = "The change is applied (a new plan revision); the executor resumes when work is left", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body that is not JSON (none is needed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or change", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`: a turn runs; `ERR_CHANGE_ANSWERED`: answered already; `ERR_CHANGE_STALE`: the list no longer fits it", body = ErrorBody),
    ))]
pub async fn approve_change(
    State(state): State<AppState>,
    PathParams((id, cid)): PathParams<(ChatId, ChangeId)>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    answer(state, id, cid, &bytes, true).await
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/changes/{cid}/reject", tag = "plan",
    params(("id" = String, Path, description = "The chat's id"), ("cid" = String, Path, description = "The change's id")),
    responses(
        (status = 202, description = "The plan is kept; the executor resumes when work is left", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body that is not JSON (none is needed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or change", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`: a turn runs; `ERR_CHANGE_ANSWERED`: answered already", body = ErrorBody),
    ))]
pub async fn reject_change(
    State(state): State<AppState>,
    PathParams((id, cid)): PathParams<(ChatId, ChangeId)>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    answer(state, id, cid, &bytes, false).await
}

async fn answer(
    state: AppState,
    id: ChatId,
    cid: ChangeId,
    bytes: &axum::body::Bytes,
    approve: bool,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    body::no_body(bytes)?;
    Ok(accepted(state.engine.answer_plan_change(&id, &cid, approve).await?))
}
