//! The routes of DESIGN §9, each a few lines over the engine's API.

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::sse::{Event as SseEvent, KeepAlive, Sse};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use futures_util::stream::{self, Stream};
use preflight_engine::lifecycle::{ApiError, ChatPatch, ChatView, NewChat, TaskPanel};
use preflight_engine::planner::PlanEdit;
use serde::Deserialize;
use serde_json::{json, Value};
use tokio::sync::broadcast::error::RecvError;

use super::body;
use super::error::HttpError;
use super::AppState;

type Answer<T> = Result<T, HttpError>;

pub fn router(state: AppState) -> Router {
    Router::new()
        .route("/v1/chats", post(create_chat).get(list_chats))
        .route("/v1/chats/{id}", get(get_chat).patch(update_chat).delete(delete_chat))
        .route("/v1/chats/{id}/messages", post(send_message))
        .route("/v1/chats/{id}/messages/{mid}", put(edit_message))
        .route("/v1/chats/{id}/answers", post(answer))
        .route("/v1/chats/{id}/plan/approve", post(approve_plan))
        .route("/v1/chats/{id}/plan/reject", post(reject_plan))
        .route("/v1/chats/{id}/plan/cancel", post(cancel_plan))
        .route("/v1/chats/{id}/plan/doc", axum::routing::patch(edit_plan_doc))
        .route("/v1/chats/{id}/plan/revisions", get(plan_revisions))
        .route("/v1/chats/{id}/plan", get(task_list).delete(delete_task_list))
        .route("/v1/chats/{id}/plan/tasks/{task}/confirm-drop", post(confirm_drop))
        .route("/v1/chats/{id}/stop", post(stop))
        .route("/v1/chats/{id}/profile", get(profile))
        .route("/v1/chats/{id}/events", get(events))
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(state)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SendBody {
    content: String,
    #[serde(default)]
    files: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditBody {
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerBody {
    question_id: String,
    answer: String,
}

#[derive(Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct RejectBody {
    feedback: Option<String>,
}

fn accepted(view: ChatView) -> (StatusCode, Json<ChatView>) {
    (StatusCode::ACCEPTED, Json(view))
}

async fn create_chat(
    State(state): State<AppState>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<Value>)> {
    let request: NewChat = body::optional_json(&bytes)?;
    let chat = state.engine.create_chat(request)?;
    Ok((StatusCode::CREATED, Json(json!(chat))))
}

async fn list_chats(State(state): State<AppState>) -> Answer<Json<Value>> {
    Ok(Json(json!({"chats": state.engine.list_chats()?})))
}

async fn get_chat(State(state): State<AppState>, Path(id): Path<String>) -> Answer<Json<ChatView>> {
    Ok(Json(state.engine.chat_view(&id)?))
}

/// `PATCH /v1/chats/{id}`: title, workspace (null clears), plan_mode, auto_approve, save_plans.
async fn update_chat(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<Json<Value>> {
    state.engine.require_chat(&id)?;
    let patch: ChatPatch = body::json(&bytes)?;
    Ok(Json(json!(state.engine.update_chat(&id, &patch)?)))
}

async fn delete_chat(State(state): State<AppState>, Path(id): Path<String>) -> Answer<Json<Value>> {
    Ok(Json(json!({"deleted": state.engine.delete_chat(&id).await?})))
}

async fn send_message(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: SendBody = body::json(&bytes)?;
    Ok(accepted(state.engine.send(&id, &request.content, request.files)?))
}

async fn edit_message(
    State(state): State<AppState>,
    Path((id, mid)): Path<(String, String)>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: EditBody = body::json(&bytes)?;
    Ok(accepted(state.engine.edit_message(&id, &mid, &request.content)?))
}

async fn answer(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: AnswerBody = body::json(&bytes)?;
    Ok(accepted(state.engine.answer(&id, &request.question_id, &request.answer)?))
}

async fn approve_plan(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(accepted(state.engine.approve_plan(&id)?))
}

async fn reject_plan(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<(StatusCode, Json<ChatView>)> {
    state.engine.require_chat(&id)?;
    let request: RejectBody = body::optional_json(&bytes)?;
    Ok(accepted(state.engine.reject_plan(&id, request.feedback.as_deref())?))
}

async fn cancel_plan(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<Json<ChatView>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(Json(state.engine.cancel_plan(&id).await?))
}

async fn edit_plan_doc(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<Json<Value>> {
    state.engine.require_chat(&id)?;
    let edit: PlanEdit = body::json(&bytes)?;
    Ok(Json(json!(state.engine.edit_plan_doc(&id, &edit)?)))
}

async fn plan_revisions(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Answer<Json<Value>> {
    Ok(Json(json!({"revisions": state.engine.plan_revisions(&id)?})))
}

async fn task_list(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Answer<Json<TaskPanel>> {
    Ok(Json(state.engine.task_panel(&id).await?))
}

/// The user confirms a drop the executor made: the task becomes `skipped` in the plan folder.
async fn confirm_drop(
    State(state): State<AppState>,
    Path((id, task)): Path<(String, String)>,
    bytes: Bytes,
) -> Answer<Json<Value>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    let task: u32 =
        task.parse().map_err(|_| ApiError::bad_request(format!("{task:?} is not a task id")))?;
    Ok(Json(json!({"files": state.engine.confirm_drop(&id, task).await?})))
}

async fn delete_task_list(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Answer<Json<Value>> {
    Ok(Json(json!({"deleted": state.engine.delete_task_list(&id)?})))
}

async fn stop(
    State(state): State<AppState>,
    Path(id): Path<String>,
    bytes: Bytes,
) -> Answer<Json<ChatView>> {
    state.engine.require_chat(&id)?;
    body::no_body(&bytes)?;
    Ok(Json(state.engine.stop(&id).await?))
}

async fn profile(State(state): State<AppState>, Path(id): Path<String>) -> Answer<Json<Value>> {
    Ok(Json(json!(state.engine.profile(&id).await?)))
}

/// The chat's events as `text/event-stream`: `event:` is the type, `data:` the event's JSON.
async fn events(
    State(state): State<AppState>,
    Path(id): Path<String>,
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

/// Routes that do not exist, in our error shape.
pub async fn not_found() -> HttpError {
    HttpError(ApiError::new(preflight_engine::lifecycle::ErrorCode::NotFound, "no such route"))
}

/// A known route asked with a method it does not have.
pub async fn method_not_allowed() -> axum::response::Response {
    use axum::response::IntoResponse;
    let error = ApiError::bad_request("this route does not take that method");
    (StatusCode::METHOD_NOT_ALLOWED, Json(serde_json::json!({ "error": error }))).into_response()
}
