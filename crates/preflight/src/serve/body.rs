//! Request bodies read by hand, so that every malformed one gets our `ERR_BAD_REQUEST`
//! shape rather than a framework's plain-text rejection.

use axum::body::Bytes;
use preflight_engine::lifecycle::ApiError;
use serde::de::DeserializeOwned;

/// A JSON body of type `T`; malformed JSON, missing or mistyped fields are refused.
pub fn json<T: DeserializeOwned>(bytes: &Bytes) -> Result<T, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ApiError::bad_request("this request needs a JSON body"));
    }
    serde_json::from_slice(bytes)
        .map_err(|error| ApiError::bad_request(format!("bad JSON body: {error}")))
}

/// A body that may be absent (or `{}`/`null`): `T::default()` then. A body of whitespace
/// is not absent: it is malformed JSON.
pub fn optional_json<T: DeserializeOwned + Default>(bytes: &Bytes) -> Result<T, ApiError> {
    if bytes.is_empty() {
        return Ok(T::default());
    }
    match serde_json::from_slice::<serde_json::Value>(bytes) {
        Ok(serde_json::Value::Null) => Ok(T::default()),
        Ok(_) => json(bytes),
        Err(error) => Err(ApiError::bad_request(format!("bad JSON body: {error}"))),
    }
}

/// A route that takes no body accepts none, or any well-formed JSON, which it ignores.
pub fn no_body(bytes: &Bytes) -> Result<(), ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    serde_json::from_slice::<serde_json::Value>(bytes)
        .map(drop)
        .map_err(|error| ApiError::bad_request(format!("bad JSON body: {error}")))
}
