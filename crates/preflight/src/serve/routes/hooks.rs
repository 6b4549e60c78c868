//! The user's hooks (DESIGN §17): what runs, the files with errors, and which workspaces'
//! hooks files the user trusts.

use axum::extract::State;
use axum::Json;
use preflight_engine::hooks::HooksView;
use serde::Deserialize;
use utoipa::ToSchema;

use super::Answer;
use crate::serve::answers::ErrorBody;
use crate::serve::body;
use crate::serve::extract::RawBody;
use crate::serve::AppState;

#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct HooksTrustBody {
    /// The workspace folder, an absolute path; trusted by its canonical path.
    #[schema(pattern = "^/")]
    workspace: String,
    /// Whether its `.preflight/hooks.json` may run.
    trusted: bool,
}

#[utoipa::path(get, path = "/v1/hooks", tag = "hooks",
    responses(
        (status = 200, description = "The hooks that run (the user's `hooks.json` and trusted workspaces'), files with an error (they run none of their hooks) and the workspaces with a hooks file and their trust", body = HooksView),
    ))]
pub async fn hooks(State(state): State<AppState>) -> Answer<Json<HooksView>> {
    Ok(Json(state.engine.hooks()?))
}

#[utoipa::path(put, path = "/v1/hooks/trust", tag = "hooks",
    request_body(content = HooksTrustBody),
    responses(
        (status = 200, description = "The trust is saved; the hooks as they are now", body = HooksView),
        (status = 400, description = "`ERR_BAD_REQUEST`: malformed JSON, a missing or mistyped field, a workspace that is not an absolute path to a folder here", body = ErrorBody),
    ))]
pub async fn trust(
    State(state): State<AppState>,
    RawBody(bytes): RawBody,
) -> Answer<Json<HooksView>> {
    let request: HooksTrustBody = body::json(&bytes)?;
    Ok(Json(state.engine.trust_hooks(&request.workspace, request.trusted)?))
}
