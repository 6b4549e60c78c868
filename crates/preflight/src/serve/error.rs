//! `ApiError` as an HTTP answer: `{"error":{"code","message"}}` with the status of DESIGN §9.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use preflight_engine::lifecycle::{ApiError, ErrorCode};

/// An error and the status it is sent with: the code's own status, unless the framework
/// refused the request before a handler ran (an oversize body is 413, a wrong method 405).
pub struct HttpError {
    pub status: StatusCode,
    pub error: ApiError,
}

impl HttpError {
    pub fn with_status(status: StatusCode, error: ApiError) -> HttpError {
        HttpError { status, error }
    }
}

impl From<ApiError> for HttpError {
    fn from(error: ApiError) -> HttpError {
        HttpError { status: status_of(error.code), error }
    }
}

/// The status of each code: the API's own codes as DESIGN §9 lists them. The provider's and
/// a turn's codes travel in `error` events; should one answer a request, a failure on the
/// model's side is a gateway status, never 401 (which says the API token is wrong).
pub fn status_of(code: ErrorCode) -> StatusCode {
    match code {
        ErrorCode::Unauthorized => StatusCode::UNAUTHORIZED,
        ErrorCode::BadRequest
        | ErrorCode::EmptyAnswer
        | ErrorCode::UnknownQuestion
        | ErrorCode::ForkFolder
        | ErrorCode::ForkUnrecorded
        | ErrorCode::PromptUnknown
        | ErrorCode::PromptArguments
        | ErrorCode::ResourceUnavailable => StatusCode::BAD_REQUEST,
        ErrorCode::NotFound => StatusCode::NOT_FOUND,
        ErrorCode::HookBlocked => StatusCode::FORBIDDEN,
        ErrorCode::McpSignIn => StatusCode::CONFLICT,
        ErrorCode::PlanPending
        | ErrorCode::TurnActive
        | ErrorCode::NoQuestions
        | ErrorCode::NoPlan
        | ErrorCode::NothingLeft
        | ErrorCode::ChangeAnswered
        | ErrorCode::ChangeStale
        | ErrorCode::CheckpointConflict
        | ErrorCode::Unconfined
        | ErrorCode::VenvAdoptable
        | ErrorCode::VenvForeign
        | ErrorCode::WorktreeMissing
        | ErrorCode::NoWorktree
        | ErrorCode::MergeConflicts
        | ErrorCode::CheckoutChanged
        | ErrorCode::MergeRefused
        | ErrorCode::Cancelled => StatusCode::CONFLICT,
        ErrorCode::ContextTooLong => StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::ProviderRateLimited => StatusCode::TOO_MANY_REQUESTS,
        ErrorCode::ProviderSetup | ErrorCode::ProviderUnavailable => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        ErrorCode::ProviderTimeout => StatusCode::GATEWAY_TIMEOUT,
        ErrorCode::ProviderUnauthorized
        | ErrorCode::ProviderStreamCut
        | ErrorCode::ProviderRejected
        | ErrorCode::ProviderBadResponse
        | ErrorCode::PromptFailed
        | ErrorCode::ResourceFailed => StatusCode::BAD_GATEWAY,
        ErrorCode::StepLimit
        | ErrorCode::PlanFiles
        | ErrorCode::Checkpoint
        | ErrorCode::Worktree
        | ErrorCode::McpNotInstalled
        | ErrorCode::Internal => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        if self.error.code == ErrorCode::Internal {
            tracing::error!(message = %self.error.message, "request failed");
        }
        let body =
            serde_json::json!({"error": {"code": self.error.code, "message": self.error.message}});
        (self.status, Json(body)).into_response()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_has_an_error_status() {
        for &code in ErrorCode::ALL {
            let status = status_of(code);
            assert!(status.is_client_error() || status.is_server_error(), "{code:?}: {status}");
        }
    }
}
