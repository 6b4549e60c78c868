//! Reading text out of the JSON models write: the first of several spellings of a key, a
//! number taken as text, blanks treated as absent. Shared by every part of the fence reader.

use serde_json::{Map, Value};

/// The first of `keys` that holds text (a string, or a number written as one), trimmed.
pub(super) fn first_text(object: &Map<String, Value>, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|key| object.get(*key).and_then(scalar_text))
}

/// The first of `keys` that is present at all, whatever it holds.
pub(super) fn first_value<'a>(object: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a Value> {
    keys.iter().find_map(|key| object.get(*key))
}

pub(super) fn scalar_text(value: &Value) -> Option<String> {
    match value {
        Value::String(text) => non_empty(text),
        Value::Number(number) => Some(number.to_string()),
        _ => None,
    }
}

pub(super) fn non_empty(text: &str) -> Option<String> {
    let trimmed = text.trim();
    (!trimmed.is_empty()).then(|| trimmed.to_string())
}

pub(super) fn same_text(a: &str, b: &str) -> bool {
    a.trim().to_lowercase() == b.trim().to_lowercase()
}
