//! Extractors whose rejections are ours: axum's own answer a refused path or body in plain
//! text, and every answer of this API is the error shape of DESIGN §9.

use axum::body::Bytes;
use axum::extract::{FromRequest, FromRequestParts, Path, Request};
use axum::http::request::Parts;
use preflight_engine::lifecycle::ApiError;
use serde::de::DeserializeOwned;

use super::error::HttpError;

/// The longest request body taken (2 MiB, axum's default, said here once).
pub const MAX_BODY_BYTES: usize = 2 * 1024 * 1024;
/// The longest body of a message (`POST /v1/chats/{id}/messages`), which may carry pasted
/// images: one of the largest (20 MiB, some 27 MiB as base64) or several smaller ones.
pub const MAX_MESSAGE_BODY_BYTES: usize = 32 * 1024 * 1024;

/// The path's parameters; a segment that is not percent-encoded UTF-8 is `ERR_BAD_REQUEST`.
pub struct PathParams<T>(pub T);

impl<T, S> FromRequestParts<S> for PathParams<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, HttpError> {
        match Path::<T>::from_request_parts(parts, state).await {
            Ok(Path(params)) => Ok(PathParams(params)),
            // A route whose pattern lacks a parameter its handler reads is our bug (500).
            Err(rejection) if rejection.status().is_server_error() => {
                Err(ApiError::internal(rejection.body_text()).into())
            }
            Err(rejection) => Err(HttpError::with_status(
                rejection.status(),
                ApiError::bad_request(rejection.body_text()),
            )),
        }
    }
}

/// The body's bytes, read by hand later (`body.rs`); one over [`MAX_BODY_BYTES`] (a
/// message's: [`MAX_MESSAGE_BODY_BYTES`]) is 413.
pub struct RawBody(pub Bytes);

impl<S: Send + Sync> FromRequest<S> for RawBody {
    type Rejection = HttpError;

    async fn from_request(request: Request, state: &S) -> Result<Self, HttpError> {
        match Bytes::from_request(request, state).await {
            Ok(bytes) => Ok(RawBody(bytes)),
            Err(rejection) => Err(HttpError::with_status(
                rejection.status(),
                ApiError::bad_request(format!(
                    "{} (a body has at most {MAX_BODY_BYTES} bytes; a message with images, \
                     {MAX_MESSAGE_BODY_BYTES})",
                    rejection.body_text()
                )),
            )),
        }
    }
}
