//! Fork (DESIGN §15): a new chat from a chat as it stood at a message or a checkpoint, a few
//! lines over the engine.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::lifecycle::{ChatView, ForkRequest};
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[utoipa::path(post, path = "/v1/chats/{id}/fork", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = Option<ForkRequest>, description = "Optional. `message_id`: fork at that message (the conversation up to and including it); `checkpoint_id`: at that checkpoint (the conversation when it was taken, with its task list), with `workspace` a folder, absent or empty, that gets its files; neither: the whole chat"),
    responses(
        (status = 201, description = "The fork, as `GET /v1/chats/{id}` shows it: the original as it stood there, with fresh ids and `forked_from`; a turn running there is stopped (Continue goes on); the original is unchanged", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a message or checkpoint that is not this chat's, both at once, a `workspace` without a checkpoint or not absolute; `ERR_FORK_FOLDER`: a folder that is not absent or empty, or lies in the original's workspace; `ERR_FORK_UNRECORDED`: no record of how the chat stood there (an older version's message, an imported chat's, or edited since). Nothing is stored or written", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn fork_chat(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: ForkRequest = body::optional_json(&bytes)?;
    Ok((StatusCode::CREATED, Json(state.engine.fork_chat(&id, request).await?)))
}
