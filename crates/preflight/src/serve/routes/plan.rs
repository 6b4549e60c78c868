//! The plan card (approve, reject, cancel, edit), its revisions, and the task list.

use axum::extract::State;
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::lifecycle::{ApproveChoice, ChatView, PlanReview, TaskPanel};
use preflight_engine::planner::{CommentDraft, PlanDocument, PlanEdit};
use preflight_engine::ChatId;
use serde::Deserialize;
use utoipa::ToSchema;

use super::{accepted, Answer};
use crate::serve::answers::{Deleted, ErrorBody, Revisions};
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::AppState;

#[derive(Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RejectBody {
    /// What the planner should change; it plans again with it.
    feedback: Option<String>,
    /// Comments on the plan's steps (`{"step": N}`, 1-based) and fields (`{"field": "aim"}`):
    /// the planner gets each quoted with what it points at, all in one revision request.
    #[serde(default)]
    #[schema(max_items = 30)]
    comments: Vec<CommentDraft>,
}

#[derive(Default, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ApproveBody {
    /// The user allows this plan's code to run unconfined: needed, and only then read, when
    /// the chat's `state.unconfined.needs_consent` says the sandbox cannot confine it here.
    #[serde(default)]
    unconfined: bool,
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/approve", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = Option<ApproveBody>, description = "Optional"),
    responses(
        (status = 202, description = "The plan was approved and execution started", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a mistyped or unknown field; a plan over the task list's limits", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NO_PLAN`: no plan waits for approval; `ERR_TURN_ACTIVE`: a turn runs; `ERR_UNCONFINED`: the sandbox cannot confine runs here and the body did not say `\"unconfined\": true`", body = ErrorBody),
    ))]
pub async fn approve_plan(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: ApproveBody = body::optional_json(&bytes)?;
    let choice = ApproveChoice { run_unconfined: request.unconfined };
    Ok(accepted(state.engine.approve_plan_as(&id, choice)?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/reject", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = Option<RejectBody>, description = "Optional"),
    responses(
        (status = 202, description = "The plan was rejected; with feedback or comments the planner plans again", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a mistyped or unknown field; a comment on a step or field the plan does not have, or a blank one (nothing changed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NO_PLAN`: no plan waits for approval", body = ErrorBody),
    ))]
pub async fn reject_plan(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: RejectBody = body::optional_json(&bytes)?;
    let review = PlanReview { feedback: request.feedback, comments: request.comments };
    Ok(accepted(state.engine.reject_plan(&id, &review)?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/cancel", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "Plan mode's waiting card (if any) was dropped; the chat as it is now", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body that is not JSON (none is needed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn cancel_plan(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<ChatView>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(Json(state.engine.cancel_plan(&id).await?))
}

#[utoipa::path(patch, path = "/v1/chats/{id}/plan/doc", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = PlanEdit, description = "The parts of the waiting plan to replace"),
    responses(
        (status = 200, description = "The edited plan: a new revision", body = PlanDocument),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a mistyped or unknown field, an edit that leaves the plan invalid", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NO_PLAN`: no plan waits for approval", body = ErrorBody),
    ))]
pub async fn edit_plan_doc(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<PlanDocument>> {
    state.engine.require_chat(&id)?;
    let edit: PlanEdit = body::json(&bytes)?;
    Ok(Json(state.engine.edit_plan_doc(&id, &edit)?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/plan/revisions", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "Every plan document of the chat, oldest first", body = Revisions),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn plan_revisions(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Revisions>> {
    Ok(Json(Revisions { revisions: state.engine.plan_revisions(&id)? }))
}

#[utoipa::path(get, path = "/v1/chats/{id}/plan", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The task list (`[]`: no plan) and the chat's plan folder", body = TaskPanel),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn task_list(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<TaskPanel>> {
    Ok(Json(state.engine.task_panel(&id).await?))
}

#[utoipa::path(delete, path = "/v1/chats/{id}/plan", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "Whether there was a task list to delete", body = Deleted),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn delete_task_list(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Deleted>> {
    Ok(Json(Deleted { deleted: state.engine.delete_task_list(&id).await? }))
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/verify", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 202, description = "The finished plan's checks run again in the sandbox; the new verdict follows as a `completion` event (a check failing now opens its task again)", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body (none is taken)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NOTHING_LEFT`: no finished plan waits for a verdict; `ERR_TURN_ACTIVE`: a turn runs", body = ErrorBody),
        (status = 500, description = "`ERR_PLAN_FILES`: the plan folder is gone from the workspace", body = ErrorBody),
    ))]
pub async fn verify_plan(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(accepted(state.engine.verify_plan(&id).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/plan/accept", tag = "plan",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The user accepted the unverified plan as it is: recorded in its folder and on the completion record (`finalization.accepted_at`); the list closes", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body (none is taken)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NOTHING_LEFT`: no finished plan waits for a verdict; `ERR_TURN_ACTIVE`: a turn runs", body = ErrorBody),
        (status = 500, description = "`ERR_PLAN_FILES`: the plan folder could not be written; nothing changed", body = ErrorBody),
    ))]
pub async fn accept_plan(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<ChatView>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(Json(state.engine.accept_plan(&id).await?))
}
