//! A server's questions to the user during execution (MCP elicitation): each one becomes an
//! `elicitation` event (a form card in the window, or a card asking to open a URL), waits
//! for the user's Accept / Decline / Cancel (`POST /v1/chats/{id}/elicitations/{eid}`),
//! and ends with `elicitation_closed`. Nothing answers on the user's behalf: no timer, no
//! default. A stopped turn cancels its open questions.
//!
//! This file is the user's side (list, answer, the answer's checks); the questions
//! themselves wait in `open_questions.rs`, in memory only: after a restart their calls are
//! gone too, so there is nothing to answer.

use preflight_agent::events::Elicitation;
use preflight_mcp::{Answer, Question};
use preflight_protocol::error_code::ErrorCode;
use preflight_protocol::ids::ChatId;
use serde_json::Value;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;

impl Engine {
    /// The chat's questions waiting for the user.
    pub fn elicitations(&self, chat_id: &ChatId) -> Result<Vec<Elicitation>, ApiError> {
        self.inner.store.get_chat(chat_id)?;
        let waiting = self.inner.elicitations.waiting.lock().map_err(|_| poisoned())?;
        let mut open: Vec<Elicitation> = waiting
            .iter()
            .filter(|(_, w)| w.chat_id == *chat_id)
            .map(|(id, w)| Elicitation { id: id.clone(), question: w.question.clone() })
            .collect();
        open.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(open)
    }

    /// The user's answer to question `id` of the chat. An accepted form is checked against
    /// the server's schema first (required fields, types, enum values); a bad answer is an
    /// `ERR_BAD_REQUEST` and the question stays open.
    pub fn answer_elicitation(
        &self,
        chat_id: &ChatId,
        id: &str,
        answer: Answer,
    ) -> Result<(), ApiError> {
        self.inner.store.get_chat(chat_id)?;
        let mut waiting = self.inner.elicitations.waiting.lock().map_err(|_| poisoned())?;
        let not_found =
            || ApiError::new(ErrorCode::NotFound, format!("no open question {id} in this chat"));
        let question = match waiting.get(id) {
            Some(w) if w.chat_id == *chat_id => &w.question,
            _ => return Err(not_found()),
        };
        if let (Answer::Accept { content }, Question::Form { schema, .. }) = (&answer, question) {
            check_content(schema, content).map_err(ApiError::bad_request)?;
        }
        let open = waiting.remove(id).ok_or_else(not_found)?;
        // The call may have ended meanwhile (stopped, timed out): then nobody waits.
        let _ = open.reply.send(answer);
        Ok(())
    }
}

fn poisoned() -> ApiError {
    ApiError::internal("the open questions are unavailable (a lock was poisoned)")
}

/// Checks a form's answer against the server's flat schema.
pub(crate) fn check_content(
    schema: &Value,
    content: &serde_json::Map<String, Value>,
) -> Result<(), String> {
    let properties = schema.get("properties").and_then(Value::as_object);
    let empty = serde_json::Map::new();
    let properties = properties.unwrap_or(&empty);
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for name in required.iter().filter_map(Value::as_str) {
            if !content.contains_key(name) {
                return Err(format!("`{name}` is required"));
            }
        }
    }
    for (name, value) in content {
        let field =
            properties.get(name).ok_or_else(|| format!("the form has no field `{name}`"))?;
        check_field(name, field, value)?;
    }
    Ok(())
}

fn check_field(name: &str, field: &Value, value: &Value) -> Result<(), String> {
    let kind = field.get("type").and_then(Value::as_str).unwrap_or("string");
    let fits = match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.is_i64() || value.is_u64(),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        _ => true,
    };
    if !fits {
        let wanted = match kind {
            "integer" => "an integer",
            "array" => "a list",
            "number" => "a number",
            "boolean" => "true or false",
            _ => "text",
        };
        return Err(format!("`{name}` must be {wanted}"));
    }
    let choices =
        field.get("enum").or_else(|| field.pointer("/items/enum")).and_then(Value::as_array);
    let one_of: Option<Vec<Value>> = field
        .get("oneOf")
        .or_else(|| field.pointer("/items/anyOf"))
        .and_then(Value::as_array)
        .map(|options| options.iter().filter_map(|o| o.get("const").cloned()).collect());
    let allowed: Option<Vec<Value>> = choices.cloned().or(one_of);
    if let Some(allowed) = allowed.filter(|a| !a.is_empty()) {
        let picked: Vec<&Value> = match value {
            Value::Array(items) => items.iter().collect(),
            single => vec![single],
        };
        if let Some(bad) = picked.iter().find(|v| !allowed.contains(v)) {
            return Err(format!("`{name}` cannot be {bad}"));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::check_content;

    fn form() -> serde_json::Value {
        json!({"type": "object", "required": ["name"], "properties": {
            "name": {"type": "string"},
            "age": {"type": "integer", "minimum": 0},
            "ratio": {"type": "number"},
            "agree": {"type": "boolean"},
            "colour": {"type": "string", "enum": ["red", "blue"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l", "title": "Large"}]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        }})
    }

    #[test]
    fn a_form_answer_is_checked_against_the_servers_schema() {
        let good = json!({"name": "Ada", "age": 36, "ratio": 0.5, "agree": true,
            "colour": "red", "size": "l", "tags": ["a", "b"]});
        assert_eq!(check_content(&form(), good.as_object().unwrap()), Ok(()));
        let cases = [
            (json!({"age": 1}), "`name` is required"),
            (json!({"name": "A", "age": "x"}), "`age` must be an integer"),
            (json!({"name": "A", "age": 1.5}), "`age` must be an integer"),
            (json!({"name": "A", "agree": "yes"}), "`agree` must be true or false"),
            (json!({"name": "A", "colour": "green"}), "`colour` cannot be \"green\""),
            (json!({"name": "A", "size": "m"}), "`size` cannot be \"m\""),
            (json!({"name": "A", "tags": ["c"]}), "`tags` cannot be \"c\""),
            (json!({"name": "A", "extra": 1}), "the form has no field `extra`"),
        ];
        for (answer, error) in cases {
            assert_eq!(
                check_content(&form(), answer.as_object().unwrap()),
                Err(error.into()),
                "{answer}"
            );
        }
    }
}
