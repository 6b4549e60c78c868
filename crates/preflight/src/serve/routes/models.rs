//! The models a chat may choose (DESIGN §15): each configured provider asked for its list.

use axum::extract::State;
use axum::Json;
use preflight_engine::lifecycle::ModelList;

use crate::serve::AppState;

#[utoipa::path(get, path = "/v1/models", tag = "models",
    responses((status = 200, description = "Every model a chat may choose as `model` or `planner_model`, provider by provider, and each provider's state (why one could not be listed)", body = ModelList)))]
pub async fn list_models(State(state): State<AppState>) -> Json<ModelList> {
    Json(state.engine.list_models().await)
}
