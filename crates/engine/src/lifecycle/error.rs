//! The one error every adapter shows: `{code, message}` with a stable `ERR_*` code
//! (DESIGN §9). The HTTP adapter maps codes to statuses; the desktop shell sends it as is.

use serde::Serialize;

pub use preflight_protocol::error_code::ErrorCode;
use preflight_store::{Conflict, Entity, StoreError};

/// An error a user or an API client can read and act on. A call that returns one changed
/// nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError { code, message: message.into() }
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::BadRequest, message)
    }

    pub fn chat_not_found(chat_id: &str) -> ApiError {
        ApiError::new(ErrorCode::NotFound, format!("no chat {chat_id}"))
    }

    pub fn turn_active() -> ApiError {
        ApiError::new(
            ErrorCode::TurnActive,
            "a turn is running in this chat: wait for it or stop it",
        )
    }

    pub fn plan_pending() -> ApiError {
        ApiError::new(ErrorCode::PlanPending, "Answer or cancel the planner's questions first")
    }

    pub fn no_plan() -> ApiError {
        ApiError::new(ErrorCode::NoPlan, "no plan waits for approval in this chat")
    }

    pub fn nothing_left() -> ApiError {
        ApiError::new(ErrorCode::NothingLeft, "no task is left to continue with in this chat")
    }

    pub fn internal(message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::Internal, message)
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        match &error {
            StoreError::NotFound { entity: Entity::Chat, id } => ApiError::chat_not_found(id),
            StoreError::NotFound { entity: Entity::Message, id } => {
                ApiError::new(ErrorCode::NotFound, format!("no message {id} in this chat"))
            }
            StoreError::NotFound { entity: Entity::PlanChange, id } => {
                ApiError::new(ErrorCode::NotFound, format!("no plan change {id} in this chat"))
            }
            StoreError::WrongState { conflict, .. } => from_conflict(conflict),
            _ => ApiError::internal(error.to_string()),
        }
    }
}

fn from_conflict(conflict: &Conflict) -> ApiError {
    let code = match conflict {
        Conflict::PlanPending => return ApiError::plan_pending(),
        Conflict::NoQuestions => ErrorCode::NoQuestions,
        Conflict::UnknownQuestion { .. } => ErrorCode::UnknownQuestion,
        Conflict::NoPendingPlan => ErrorCode::NoPlan,
        Conflict::PlanAwaitingApproval | Conflict::NotPlanning { .. } => ErrorCode::TurnActive,
        Conflict::NotEditable { .. } => ErrorCode::BadRequest,
        Conflict::ChangeAnswered { .. } => ErrorCode::ChangeAnswered,
        Conflict::ChangeStale { .. } => ErrorCode::ChangeStale,
    };
    ApiError::new(code, conflict.to_string())
}
