//! Export and import of chats (DESIGN §15): a chat's export streamed to the client as the
//! engine writes it, and an export streamed from the client into the engine's import, which
//! stops reading past its size cap.

use axum::body::Body;
use axum::extract::{RawQuery, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use preflight_engine::lifecycle::{ApiError, ChatExport, ChatView, ExportFormat};
use preflight_engine::ChatId;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::extract::PathParams;
use crate::serve::query::QueryParams;
use crate::serve::stream::{streamed_answer, BodyReader};
use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/chats/{id}/export", tag = "chats",
    params(
        ("id" = String, Path, description = "The chat's id"),
        ("format" = inline(Option<ExportFormat>), Query, description = "`json` (the default): the whole chat, to import again; `markdown`: the conversation, the plan, the task list and the completion, for people"),
    ),
    responses(
        (status = 200, description = "The chat's export, streamed as it is written", content(
            (ChatExport = "application/json"),
            (String = "text/markdown"),
        )),
        (status = 400, description = "`ERR_BAD_REQUEST`: a `format` that is neither `json` nor `markdown`, a bad escape in the query string", body = ErrorBody),
        (status = 404, description = "`ERR_NOT_FOUND`: no such chat", body = ErrorBody),
    ))]
pub async fn export_chat(
    State(state): State<AppState>,
    PathParams(id): PathParams<ChatId>,
    RawQuery(query): RawQuery,
) -> Answer<Response> {
    let params = QueryParams::parse(query.as_deref())?;
    let format = match params.text("format") {
        None => ExportFormat::Json,
        Some(text) => ExportFormat::parse(text).ok_or_else(|| {
            ApiError::bad_request(format!("`format` is json or markdown, not {text:?}"))
        })?,
    };
    state.engine.require_chat(&id)?;
    let content_type = match format {
        ExportFormat::Json => "application/json",
        ExportFormat::Markdown => "text/markdown; charset=utf-8",
    };
    let disposition =
        format!("attachment; filename=\"chat-{}.{}\"", file_id(&id), format.extension());
    let engine = state.engine.clone();
    let body = streamed_answer(move |out| engine.export_chat(&id, format, out)).await?;
    Ok(([(CONTENT_TYPE, content_type.to_owned()), (CONTENT_DISPOSITION, disposition)], body)
        .into_response())
}

/// The chat's id as a file name may hold it: letters, digits, `-` and `_` only.
fn file_id(id: &ChatId) -> String {
    let safe = |ch: &char| ch.is_ascii_alphanumeric() || *ch == '-' || *ch == '_';
    id.as_str().chars().filter(safe).take(64).collect()
}

#[utoipa::path(post, path = "/v1/chats/import", tag = "chats",
    request_body(content = ChatExport, description = "A chat's JSON export (`GET /v1/chats/{id}/export`), at most 64 MiB"),
    responses(
        (status = 201, description = "The new chat, as `GET /v1/chats/{id}` shows it: fresh ids, where the exported chat stood (a turn it caught running is stopped); a workspace that is no usable folder here is left out, and a message at its end says so", body = ChatView),
        (status = 400, description = "`ERR_BAD_REQUEST`: not JSON, not a chat export, an export of a newer format, over 64 MiB, or parts that do not fit together (ids given twice, a reference to nothing); nothing is stored", body = ErrorBody),
    ))]
pub async fn import_chat(
    State(state): State<AppState>,
    body: Body,
) -> Answer<(StatusCode, Json<ChatView>)> {
    let mut reader = BodyReader::new(body);
    let engine = state.engine.clone();
    let imported = tokio::task::spawn_blocking(move || engine.import_chat(&mut reader))
        .await
        .map_err(|error| ApiError::internal(format!("the import stopped: {error}")))??;
    Ok((StatusCode::CREATED, Json(imported)))
}
