//! Chats as the user manages them: create, list, show, change, delete; what a chat's turn
//! sees (its profile) and its event stream.

use axum::extract::{RawQuery, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::Json;
use futures_util::stream::{self, Stream};
use preflight_engine::chat::Chat;
use preflight_engine::lifecycle::{ChatPage, ChatPatch, ChatView, NewChat, SandboxView};
use preflight_engine::mcp::ProfileView;
use preflight_engine::{ChatId, MessageId};
use tokio::sync::broadcast::error::RecvError;

use super::Answer;
use crate::serve::answers::{Deleted, ErrorBody};
use crate::serve::body;
use crate::serve::extract::{PathParams, RawBody};
use crate::serve::query::QueryParams;
use crate::serve::AppState;

#[utoipa::path(post, path = "/v1/chats", tag = "chats",
    request_body(content = Option<NewChat>, description = "Optional: unset fields take the values of `config.toml`"),
    responses(
        (status = 201, description = "The new chat", body = Chat),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a mistyped or unknown field, a title over 200 characters, a workspace that is not an existing folder, a model whose provider `config.toml` does not name or that the provider does not serve", body = ErrorBody),
    ))]
pub async fn create_chat(
    State(state): State<AppState>,
    RawBody(bytes): RawBody,
) -> Answer<(StatusCode, Json<Chat>)> {
    let request: NewChat = body::optional_json(&bytes)?;
    Ok((StatusCode::CREATED, Json(state.engine.new_chat(request).await?)))
}

#[utoipa::path(get, path = "/v1/chats", tag = "chats",
    params(
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Chats per page, 1–200; 50 when absent"),
        ("cursor" = Option<String>, Query, pattern = "^c[1-9a-f][0-9a-f]{0,14}$", description = "The `next_cursor` of the previous page (opaque)"),
    ),
    responses(
        (status = 200, description = "A page of chats, newest first; chats created meanwhile never shift the pages after the first", body = ChatPage),
        (status = 400, description = "`ERR_BAD_REQUEST`: a bad `limit` or `cursor`, a bad escape in the query string", body = ErrorBody),
    ))]
pub async fn list_chats(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Answer<Json<ChatPage>> {
    let params = QueryParams::parse(query.as_deref())?;
    Ok(Json(state.engine.chat_page(params.number("limit")?, params.text("cursor"))?))
}

#[utoipa::path(get, path = "/v1/chats/{id}", tag = "chats",
    params(
        ("id" = String, Path, description = "The chat's id"),
        ("from" = Option<String>, Query, description = "A message's id: the view holds the messages from it on (a search hit's); the latest page when absent"),
    ),
    responses(
        (status = 200, description = "The chat with the latest page of its messages (`messages_cursor` pages back) and its state", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: a bad escape in the query string", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat, or no message `from` in it", body = ErrorBody),
    ))]
pub async fn get_chat(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawQuery(query): RawQuery,
) -> Answer<Json<ChatView>> {
    let params = QueryParams::parse(query.as_deref())?;
    let from = params.text("from").map(|id| MessageId::from(id.to_owned()));
    Ok(Json(state.engine.chat_view_from(&id, from.as_ref())?))
}

/// `PATCH /v1/chats/{id}`: title, workspace (null clears), plan_mode, auto_approve, save_plans,
/// scope, model and planner_model (null: the configured default).
#[utoipa::path(patch, path = "/v1/chats/{id}", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    request_body(content = ChatPatch, description = "The fields to change; absent ones stay"),
    responses(
        (status = 200, description = "The changed chat", body = Chat),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a mistyped or unknown field, a blank title or one over 200 characters, a workspace that is not an existing folder, an unknown provider or model", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
        (status = 409, description = "`ERR_TURN_ACTIVE`: the workspace and the models cannot change while a turn runs", body = ErrorBody),
    ))]
pub async fn update_chat(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawBody(bytes): RawBody,
) -> Answer<Json<Chat>> {
    state.engine.require_chat(&id)?;
    let patch: ChatPatch = body::json(&bytes)?;
    Ok(Json(state.engine.patch_chat(&id, &patch).await?))
}

#[utoipa::path(delete, path = "/v1/chats/{id}", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat, its messages and plan are gone", body = Deleted),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn delete_chat(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<Deleted>> {
    Ok(Json(Deleted { deleted: state.engine.delete_chat(&id).await? }))
}

#[utoipa::path(get, path = "/v1/chats/{id}/profile", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The profile of the chat's current (or next) turn and the tool names the model sees", body = ProfileView),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn profile(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<ProfileView>> {
    Ok(Json(state.engine.profile(&id).await?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/sandbox", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat's code sandbox: available, confined, its own account (sandbox_info) or why there is none", body = SandboxView),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn sandbox(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Json<SandboxView>> {
    Ok(Json(state.engine.sandbox(&id).await?))
}

/// The chat's events as `text/event-stream`: `event:` is the type, `data:` the event's JSON.
#[utoipa::path(get, path = "/v1/chats/{id}/events", tag = "chats",
    params(("id" = String, Path, description = "The chat's id")),
    responses(
        (status = 200, description = "The chat's events of DESIGN §7 as they happen; `event:` is the type, `data:` the event's JSON", content_type = "text/event-stream", body = String),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn events(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
) -> Answer<Sse<impl Stream<Item = Result<SseEvent, std::convert::Infallible>>>> {
    let receiver = state.engine.subscribe(&id)?;
    let stream = stream::unfold(receiver, |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(event) => {
                    let data = serde_json::to_string(&event).unwrap_or_default();
                    let sse = SseEvent::default().event(event.name()).data(data);
                    return Some((Ok(sse), receiver));
                }
                // A subscriber that fell behind skips what it missed; GET the chat to resync.
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => return None,
            }
        }
    });
    Ok(Sse::new(stream).keep_alive(KeepAlive::default()))
}
