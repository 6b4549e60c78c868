//! `ApiError` as an HTTP answer: `{"error":{"code","message"}}` with the status of DESIGN §9.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use preflight_engine::lifecycle::{ApiError, ErrorCode};

pub struct HttpError(pub ApiError);

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> HttpError {
        HttpError(error)
    }
}

pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::BadRequest | ErrorCode::EmptyAnswer | ErrorCode::UnknownQuestion => {
            StatusCode::BAD_REQUEST
        }
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::PlanPending
        | ErrorCode::TurnActive
        | ErrorCode::NoQuestions
        | ErrorCode::NoPlan => StatusCode::CONFLICT,
        ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if self.0.code == ErrorCode::Internal {
            tracing::error!(message = %self.0.message, "request failed");
        }
        let body = serde_json::json!({"error": {"code": self.0.code, "message": self.0.message}});
        (status_of(self.0.code), Json(body)).into_response()
    }
}
