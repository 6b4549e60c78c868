//! A server's questions to the user during execution (MCP elicitation): the open ones, and
//! the user's answer (Accept with the form's values, Decline, Cancel).

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::mcp::Answer as UserAnswer;
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::{Elicitations, ErrorBody};
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/elicitations", tag = "mcp",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The questions MCP servers asked that wait for the user", body = Elicitations),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Elicitations>> {
    Ok(Json(Elicitations { elicitations: state.engine.elicitations(&id)? }))
}

#[utoipa::path(post, path = "/v1/chats/{id}/elicitations/{eid}", tag = "mcp",
    params(("id" = String, Path, description = "The chat's id"), ("eid" = String, Path, description = "The question's id")),
    request_body(content = UserAnswer, description = "`{\"action\": \"accept\", \"content\": {…}}` (the form's values), `{\"action\": \"decline\"}` or `{\"action\": \"cancel\"}`"),
    responses(
        (status = 204, description = "The answer went to the server"),
        (status = 400, description = "`ERR_BAD_REQUEST`: not an answer, or values the form does not take", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or open question", body = ErrorBody),
    ))]
pub async fn answer(
    State(state): State<AppState>,
    PathParams((id, eid)): PathParams<(ChatId, String)>,
    RawBody(bytes): RawBody,
) -> Answer<StatusCode> {
    state.engine.require_chat(&id)?;
    let answer: UserAnswer = body::json(&bytes)?;
    state.engine.answer_elicitation(&id, &eid, answer)?;
    Ok(StatusCode::NO_CONTENT)
}
