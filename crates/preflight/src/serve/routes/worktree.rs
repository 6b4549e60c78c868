//! A chat's own git worktree (DESIGN §18): its branch and diff, Merge (with its preview),
//! Keep as branch and Recreate, each a few lines over the engine.

use axum::extract::State;
use axum::Json;
use preflight_engine::chat::Chat;
use preflight_engine::lifecycle::{MergeOutcome, MergeRequest, WorktreeView};
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/worktree", tag = "worktrees",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat's worktree (its branch, the branch and commit it started from, what became of it) and its diff from where it started to its files now; `missing` when its folder is gone", body = WorktreeView),
        (status = 409, description = "`ERR_NO_WORKTREE`: the chat works in its folder itself", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 500, description = "`ERR_WORKTREE`: git failed on the worktree (its words)", body = ErrorBody),
    ))]
pub async fn worktree(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<WorktreeView>> {
    state.engine.require_chat(&id)?;
    Ok(Json(state.engine.worktree_view(&id).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/merge", tag = "worktrees",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = Option<MergeRequest>, description = "Optional. `mode`: `merge` (a merge commit, the default) or `squash`; `preview: true`: only say what the merge would do"),
    responses(
        (status = 200, description = "The preview (`merged: false`: the files it would change, conflicts, files changed in the user's checkout), or the merge done (`merged: true`, `commit`)", body = MergeOutcome),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, an unknown mode", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_MERGE_CONFLICTS` (the files named), `ERR_CHECKOUT_CHANGED` (the user's own changes to files it would write), `ERR_MERGE_REFUSED` (nothing to merge, the base branch gone, checked out in another worktree or being rebased, a detached start, a `digest` of another preview), `ERR_WORKTREE_MISSING`, `ERR_NO_WORKTREE`, `ERR_TURN_ACTIVE`: nothing was changed", body = ErrorBody),
        (status = 500, description = "`ERR_WORKTREE`: git failed (its words)", body = ErrorBody),
    ))]
pub async fn merge(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<MergeOutcome>> {
    state.engine.require_chat(&id)?;
    let request: MergeRequest = body::optional_json(&bytes)?;
    Ok(Json(state.engine.merge_chat(&id, request).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/worktree/keep", tag = "worktrees",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat's work is committed on its branch and the worktree folder removed: the branch is the user's (`worktree.state` is `kept`); Recreate brings the folder back", body = Chat),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`, `ERR_WORKTREE_MISSING`, `ERR_NO_WORKTREE`: nothing was changed", body = ErrorBody),
        (status = 500, description = "`ERR_WORKTREE`: git failed (its words)", body = ErrorBody),
    ))]
pub async fn keep(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Chat>> {
    state.engine.require_chat(&id)?;
    Ok(Json(state.engine.keep_chat_branch(&id).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/worktree/recreate", tag = "worktrees",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The worktree folder is made again from the chat's branch (a folder that vanished, or a chat kept as a branch that goes on working); a folder that is there is left as it is", body = Chat),
        (status = 409, description = "`ERR_NO_WORKTREE`: the chat has no worktree; `ERR_TURN_ACTIVE`", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 500, description = "`ERR_WORKTREE`: git failed (the branch is checked out elsewhere, or gone)", body = ErrorBody),
    ))]
pub async fn recreate(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Chat>> {
    state.engine.require_chat(&id)?;
    Ok(Json(state.engine.recreate_worktree(&id).await?))
}
