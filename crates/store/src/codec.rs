//! JSON columns: encoding what steps write, decoding what they read as typed `Corrupt` errors.

use serde::de::DeserializeOwned;
use serde::Serialize;

use super::error::StoreError;

/// The JSON text of a value about to be stored.
pub(super) fn to_json<T: Serialize>(value: &T) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|error| StoreError::invalid(error.to_string()))
}

/// Reads a stored JSON column; a failure names the table and the row.
pub(super) fn from_json<T: DeserializeOwned>(
    text: &str,
    table: &'static str,
    row: impl AsRef<str>,
) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|error| corrupt(table, row, error.to_string()))
}

/// Reads a stored JSON value that has already been parsed (and perhaps completed).
pub(super) fn from_value<T: DeserializeOwned>(
    value: serde_json::Value,
    table: &'static str,
    row: impl AsRef<str>,
) -> Result<T, StoreError> {
    serde_json::from_value(value).map_err(|error| corrupt(table, row, error.to_string()))
}

pub(super) fn corrupt(
    table: &'static str,
    row: impl AsRef<str>,
    reason: impl Into<String>,
) -> StoreError {
    StoreError::Corrupt { table, row: row.as_ref().to_owned(), reason: reason.into() }
}
