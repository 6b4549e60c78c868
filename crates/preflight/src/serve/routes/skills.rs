//! `GET /v1/chats/{id}/skills` (DESIGN §17): the skills a chat's turns are shown.

use axum::extract::State;
use axum::Json;
use preflight_engine::agent::skills::SkillSet;
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::extract::PathParams;
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/skills", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The skills the chat's turns list (the user's own, then its workspace's) and the folders left out with why", body = SkillSet),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn skills(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<SkillSet>> {
    Ok(Json(state.engine.skills(&id).await?))
}
