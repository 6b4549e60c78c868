//! The routes of DESIGN §9, each a few lines over the engine's API, and the router built
//! with utoipa-axum's `routes!`, which hands the same declarations to the OpenAPI document.

mod changes;
mod chats;
mod checkpoints;
mod elicitations;
mod export;
mod fork;
mod hooks;
mod meta;
mod models;

pub use meta::Document;
mod plan;
mod prompts;
mod sandbox;
mod search;
mod skills;
mod turns;
mod worktree;

use axum::http::StatusCode;
use axum::Json;
use preflight_engine::lifecycle::{ApiError, ChatView, ErrorCode};
use utoipa::OpenApi;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::error::HttpError;
use super::openapi::ApiDoc;
use super::AppState;

type Answer<T> = Result<T, HttpError>;

/// Every route with its documentation; `serve::app` adds the fallbacks and the token check.
pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(meta::health))
        .routes(routes!(meta::openapi_document))
        .routes(routes!(models::list_models))
        .routes(routes!(chats::create_chat, chats::list_chats))
        .routes(routes!(chats::get_chat, chats::update_chat, chats::delete_chat))
        .routes(routes!(chats::profile))
        .routes(routes!(chats::sandbox))
        .routes(routes!(skills::skills))
        .routes(routes!(sandbox::adopt_venv))
        .routes(routes!(chats::events))
        .routes(routes!(export::export_chat))
        .routes(routes!(export::import_chat))
        .routes(routes!(fork::fork_chat))
        .merge(turns::message_routes())
        .routes(routes!(search::search))
        .routes(routes!(turns::edit_message))
        .routes(routes!(turns::answer))
        .routes(routes!(turns::stop))
        .routes(routes!(turns::continue_work))
        .routes(routes!(plan::approve_plan))
        .routes(routes!(plan::reject_plan))
        .routes(routes!(plan::cancel_plan))
        .routes(routes!(plan::edit_plan_doc))
        .routes(routes!(plan::plan_revisions))
        .routes(routes!(plan::task_list, plan::delete_task_list))
        .routes(routes!(plan::verify_plan))
        .routes(routes!(plan::accept_plan))
        .routes(routes!(changes::plan_changes))
        .routes(routes!(changes::approve_change))
        .routes(routes!(changes::reject_change))
        .routes(routes!(elicitations::list))
        .routes(routes!(elicitations::answer))
        .routes(routes!(checkpoints::list))
        .routes(routes!(checkpoints::diff))
        .routes(routes!(checkpoints::preview, checkpoints::restore))
        .routes(routes!(prompts::prompts))
        .routes(routes!(prompts::resources))
        .routes(routes!(hooks::hooks))
        .routes(routes!(hooks::trust))
        .routes(routes!(worktree::worktree))
        .routes(routes!(worktree::merge))
        .routes(routes!(worktree::keep))
        .routes(routes!(worktree::recreate))
}

/// A 202: the chat as `GET` shows it at that moment.
fn accepted(view: ChatView) -> (StatusCode, Json<ChatView>) {
    (StatusCode::ACCEPTED, Json(view))
}

/// Routes that do not exist, in our error shape.
pub async fn not_found() -> HttpError {
    ApiError::new(ErrorCode::NotFound, "no such route").into()
}

/// A known route asked with a method it does not have (axum adds the `Allow` header).
pub async fn method_not_allowed() -> HttpError {
    HttpError::with_status(
        StatusCode::METHOD_NOT_ALLOWED,
        ApiError::bad_request("this route does not take that method"),
    )
}
