//! The checkpoints Preflight takes of a chat's workspace, a diff between two, and a restore
//! (issue 31), each a few lines over the engine.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::lifecycle::{
    ApiError, ChatView, CheckpointDiff, CheckpointList, RestorePreview, RestoreRequest,
};
use preflight_engine::ChatId;

use super::{accepted, Answer};
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/checkpoints", tag = "checkpoints",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat's checkpoints, oldest first, and each task's span with what it changed", body = CheckpointList),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn list(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<CheckpointList>> {
    Ok(Json(state.engine.checkpoints(&id).await?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/checkpoints/{n}/diff", tag = "checkpoints",
    params(
        ("id" = String, Path, description = "The chat's id"),
        ("n" = u32, Path, description = "The checkpoint the diff starts from"),
        ("to" = Option<u32>, Query, description = "The checkpoint it ends at; the latest when absent"),
    ),
    responses(
        (status = 200, description = "Each changed file with its figures and unified diff, within a size budget (`truncated` says what it left out)", body = CheckpointDiff),
        (status = 400, description = "`ERR_BAD_REQUEST`: `to` is not a checkpoint number", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or checkpoint", body = ErrorBody),
        (status = 409, description = "`ERR_CHECKPOINT_CONFLICT`: a checkpoint of another folder (the chat's workspace moved)", body = ErrorBody),
    ))]
pub async fn diff(
    State(state): State<AppState>,
    PathParams((id, n)): PathParams<(ChatId, u32)>,
    RawQuery(query): RawQuery,
) -> Answer<Json<CheckpointDiff>> {
    let to = to_param(query.as_deref())?;
    Ok(Json(state.engine.checkpoint_diff(&id, n, to).await?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/checkpoints/{n}/restore", tag = "checkpoints",
    params(("id" = String, Path, description = "The chat's id"), ("n" = u32, Path, description = "The checkpoint")),
    responses(
        (status = 200, description = "What a restore to the checkpoint would write, delete and keep, and the plan's `digest`: ask the user with it", body = RestorePreview),
        (status = 400, description = "`ERR_BAD_REQUEST`: `n` is not a checkpoint number, or the chat has no workspace", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or checkpoint", body = ErrorBody),
        (status = 409, description = "`ERR_CHECKPOINT_CONFLICT`: a checkpoint of another folder (the chat's workspace moved)", body = ErrorBody),
    ))]
pub async fn preview(
    State(state): State<AppState>,
    PathParams((id, n)): PathParams<(ChatId, u32)>,
) -> Answer<Json<RestorePreview>> {
    Ok(Json(state.engine.restore_preview(&id, n).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/checkpoints/{n}/restore", tag = "checkpoints",
    params(("id" = String, Path, description = "The chat's id"), ("n" = u32, Path, description = "The checkpoint")),
    request_body(content = RestoreRequest, description = "`digest`: the preview's (`GET` of this path) the user confirmed; `overwrite_user_changes` overwrites files the user changed since the latest checkpoint, which are kept otherwise"),
    responses(
        (status = 202, description = "The files and the task list are back as at the checkpoint; the restore is an entry in the chat", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a malformed body or no `digest`", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or checkpoint", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`: a turn runs; `ERR_CHECKPOINT_CONFLICT`: the plan is no longer the previewed one (`digest`), or the checkpoint is of another folder; nothing was changed", body = ErrorBody),
    ))]
pub async fn restore(
    State(state): State<AppState>,
    PathParams((id, n)): PathParams<(ChatId, u32)>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: RestoreRequest = body::json(&bytes)?;
    Ok(accepted(state.engine.restore_checkpoint(&id, n, request).await?))
}

/// `to` of the query string, if given; anything else in it is ignored.
fn to_param(query: Option<&str>) -> Result<Option<u32>, ApiError> {
    let Some(query) = query else { return Ok(None) };
    let value = query.split('&').find_map(|pair| pair.strip_prefix("to="));
    value
        .map(|value| {
            value.parse::<u32>().map_err(|_| {
                ApiError::bad_request(format!("`to` must be a checkpoint number, not {value:?}"))
            })
        })
        .transpose()
}

#[cfg(test)]
mod tests {
    use super::to_param;

    #[test]
    fn to_is_a_number_or_absent() {
        assert_eq!(to_param(None).unwrap(), None);
        assert_eq!(to_param(Some("")).unwrap(), None);
        assert_eq!(to_param(Some("to=3")).unwrap(), Some(3));
        assert_eq!(to_param(Some("x=1&to=12")).unwrap(), Some(12));
        assert!(to_param(Some("to=-1")).unwrap_err().message.contains("checkpoint number"));
        assert!(to_param(Some("to=")).is_err());
    }
}
