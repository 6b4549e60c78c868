//! The answers of the routes that are not an engine type as is (`{deleted:…}`,
//! `{revisions:[…]}`, …), typed so that the OpenAPI document is generated from them.

use preflight_engine::lifecycle::ApiError;
use preflight_engine::planner::PlanDocument;
use preflight_engine::tasks::PlanChange;
use serde::Serialize;
use utoipa::ToSchema;

/// `DELETE` of a chat or of its task list: whether there was something to delete.
#[derive(Serialize, ToSchema)]
pub struct Deleted {
    pub deleted: bool,
}

/// `GET /v1/chats/{id}/plan/revisions`: plan documents, oldest first.
#[derive(Serialize, ToSchema)]
pub struct Revisions {
    pub revisions: Vec<PlanDocument>,
}

/// `GET /v1/chats/{id}/plan/changes`: the executor's change requests, oldest first.
#[derive(Serialize, ToSchema)]
pub struct Changes {
    pub changes: Vec<PlanChange>,
}

/// `GET /v1/chats/{id}/elicitations`: servers' questions waiting for the user.
#[derive(Serialize, ToSchema)]
pub struct Elicitations {
    pub elicitations: Vec<preflight_engine::lifecycle::Elicitation>,
}

/// `GET /v1/health`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    pub ok: bool,
    pub version: String,
}

/// Every refused request: `{"error":{"code":"ERR_…","message":"…"}}`.
#[derive(Serialize, ToSchema)]
pub struct ErrorBody {
    pub error: ApiError,
}
