//! Search across every chat and a chat's messages a page at a time (issue 33).

use axum::extract::{RawQuery, State};
use axum::Json;
use preflight_engine::lifecycle::{MessagePage, SearchPage};
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::extract::PathParams;
use crate::serve::query::QueryParams;
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/search", tag = "chats",
    params(
        ("q" = String, Query, pattern = r"\S", max_length = 200, description = "The words to find (all of them; the last also as a prefix unless the text ends with a space); at most 200 characters and 16 words. FTS syntax in it is taken as words"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 100, description = "Hits per page, 1–100; 20 when absent"),
        ("cursor" = Option<String>, Query, pattern = "^[th][1-9a-f][0-9a-f]{0,14}$", description = "The `next_cursor` of the previous page (opaque)"),
    ),
    responses(
        (status = 200, description = "Chats whose title matched, newest first, then messages that matched, newest first; each with its snippet in plain pieces, the matched words marked", body = SearchPage),
        (status = 400, description = "`ERR_BAD_REQUEST`: `q` missing or blank, over 200 characters or 16 words, a bad `limit` or `cursor`, a bad escape in the query string", body = ErrorBody),
    ))]
pub async fn search(
    State(state): State<AppState>,
    RawQuery(query): RawQuery,
) -> Answer<Json<SearchPage>> {
    let params = QueryParams::parse(query.as_deref())?;
    let text = params.text("q").unwrap_or("");
    Ok(Json(state.engine.search(text, params.number("limit")?, params.text("cursor"))?))
}

#[utoipa::path(get, path = "/v1/chats/{id}/messages", tag = "chats",
    params(
        ("id" = String, Path, description = "The chat's id"),
        ("before" = Option<String>, Query, pattern = "^m[1-9a-f][0-9a-f]{0,14}$", description = "A `next_cursor` (or the chat's `messages_cursor`): the page of messages before it; the latest page when absent"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 500, description = "Messages per page, 1–500; 100 when absent"),
    ),
    responses(
        (status = 200, description = "A page of the chat's messages, oldest first within the page", body = MessagePage),
        (status = 400, description = "`ERR_BAD_REQUEST`: a bad `limit` or `before`, a bad escape in the query string", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn messages(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawQuery(query): RawQuery,
) -> Answer<Json<MessagePage>> {
    let params = QueryParams::parse(query.as_deref())?;
    let page = state.engine.message_page(&id, params.text("before"), params.number("limit")?)?;
    Ok(Json(page))
}
