//! What a chat's MCP servers offer the user besides tools (DESIGN §17): their prompts
//! (`/NAME args` in a message) and resources (`@server:uri`).

use axum::extract::State;
use axum::Json;
use preflight_engine::mcp::{PromptList, ResourceList};
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::extract::PathParams;
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/prompts", tag = "mcp",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The prompts of the chat's MCP servers (never the code sandbox's), each with its arguments in their order and the command that uses it (`/COMMAND args`); servers that failed or did not answer in time are named in `failed`", body = PromptList),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn prompts(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<PromptList>> {
    Ok(Json(state.engine.prompts(&id).await?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/resources", tag = "mcp",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The resources the chat's next turn may read (while planning only read-only servers'), each with the `@server:uri` that attaches it to a message; servers that failed or did not answer in time are named in `failed`", body = ResourceList),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn resources(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<ResourceList>> {
    Ok(Json(state.engine.resources(&id).await?))
}
