//! What starts, resumes or stops a turn: a message, an edited message, an answer, Continue,
//! stop.

use axum::extract::{DefaultBodyLimit, State};
use axum::http::StatusCode;
use axum::Json;
use preflight_engine::chat::PastedImage;
use preflight_engine::lifecycle::ChatView;
use preflight_engine::{ChatId, MessageId, QuestionId};
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::{accepted, Answer};
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody, MAX_MESSAGE_BODY_BYTES};
use crate::serve::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SendBody {
    /// The message; not blank.
    #[schema(pattern = r"\S")]
    content: String,
    /// Files to attach: absolute paths, or relative to the chat's workspace. Each is copied
    /// for the chat; an image among them (PNG, JPEG, GIF, WebP) is shown to a vision model.
    #[serde(default)]
    files: Vec<String>,
    /// Images pasted or dropped into the message box, base64: kept like attached files and
    /// shown to a vision model (DESIGN §15).
    #[serde(default)]
    images: Vec<PastedImage>,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EditBody {
    /// The message's new text; not blank.
    #[schema(pattern = r"\S")]
    content: String,
}

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct AnswerBody {
    /// The id of a question of the waiting card.
    question_id: QuestionId,
    /// An option's text or the user's own words; not blank.
    #[schema(pattern = r"\S")]
    answer: String,
}

#[utoipa::path(post, path = "/v1/chats/{id}/messages", tag = "turns",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = SendBody),
    responses(
        (status = 202, description = "The turn started; the chat as `GET` shows it now", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a missing, mistyped or unknown field, a blank message, a file or image that cannot be attached, images to a model that cannot see them (the message names it); `ERR_PROMPT_UNKNOWN`, `ERR_PROMPT_ARGUMENTS`: `/server:NAME` names no prompt of that server, or the prompt's arguments do not fit; `ERR_RESOURCE_UNAVAILABLE`: `@server:uri` names a server the chat's next turn may not read, or a resource too large; nothing is stored", body = ErrorBody),
        (status = 403, description = "`ERR_HOOK_BLOCKED`: the user's `UserPromptSubmit` hook blocked the message (its reason in the message); nothing is stored", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_PLAN_PENDING`: the planner's questions wait for answers; `ERR_TURN_ACTIVE`: a turn runs", body = ErrorBody),
        (status = 413, description = "`ERR_BAD_REQUEST`: the body is over 32 MiB", body = ErrorBody),
        (status = 502, description = "`ERR_PROMPT_FAILED`, `ERR_RESOURCE_FAILED`: the MCP server failed to give the prompt the message names (`/NAME args`) or a resource it names (`@server:uri`); nothing is stored", body = ErrorBody),
    ))]
pub async fn send_message(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: SendBody = body::json(&bytes)?;
    let view = state.engine.send_typed(&id, &request.content, request.files, request.images);
    Ok(accepted(view.await?))
}

/// The routes of `/v1/chats/{id}/messages`: a message may carry pasted images, so its body
/// may be larger than others ([`MAX_MESSAGE_BODY_BYTES`]).
pub fn message_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(send_message, super::search::messages))
        .layer(DefaultBodyLimit::max(MAX_MESSAGE_BODY_BYTES))
}

#[utoipa::path(put, path = "/v1/chats/{id}/messages/{mid}", tag = "turns",
    params(("id" = String, Path, description = "The chat's id"), ("mid" = String, Path, description = "A user message's id")),
    request_body(content = EditBody),
    responses(
        (status = 202, description = "The message was edited and the chat re-sent from it", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a missing or mistyped field, a blank text, a message that is not the user's", body = ErrorBody),
        (status = 403, description = "`ERR_HOOK_BLOCKED`: the user's `UserPromptSubmit` hook blocked the edited text; nothing changed", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat or message", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`: a turn runs; `ERR_PLAN_PENDING`", body = ErrorBody),
    ))]
pub async fn edit_message(
    State(state): State<AppState>,
    PathParams((id, mid)): PathParams<(ChatId, MessageId)>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: EditBody = body::json(&bytes)?;
    Ok(accepted(state.engine.edit_message(&id, &mid, &request.content)?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/answers", tag = "turns",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = AnswerBody),
    responses(
        (status = 202, description = "The answer was taken; the planner goes on once every question has one", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a missing or mistyped field; `ERR_EMPTY_ANSWER`; `ERR_UNKNOWN_QUESTION`", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NO_QUESTIONS`: no question card waits", body = ErrorBody),
    ))]
pub async fn answer(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: AnswerBody = body::json(&bytes)?;
    Ok(accepted(state.engine.answer(&id, &request.question_id, &request.answer)?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/stop", tag = "turns",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The running turn (if any) was aborted; the chat as it is now", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body that is not JSON (none is needed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn stop(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<ChatView>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(Json(state.engine.stop(&id).await?))
}

#[utoipa::path(post, path = "/v1/chats/{id}/continue", tag = "turns",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 202, description = "The executor resumes with the open tasks and why it stopped (`state.stopped`); the Continue is a user message with `resume`", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a body that is not JSON (none is needed)", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_NOTHING_LEFT`: no task is open; `ERR_TURN_ACTIVE`: a turn runs; `ERR_PLAN_PENDING`: a card waits", body = ErrorBody),
    ))]
pub async fn continue_work(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(accepted(state.engine.continue_work(&id)?))
}
