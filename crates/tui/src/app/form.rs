//! An MCP server's form in a terminal: its fields from the server's flat JSON Schema (string,
//! number, integer, boolean and enum fields), and a typed value read as its field's type. The
//! engine checks the whole answer against the schema again when it is sent. Pure.

use serde_json::{Map, Value};

#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    pub name: String,
    /// The schema's `title` or `description`, when it gives one.
    pub label: Option<String>,
    pub kind: FieldKind,
    pub required: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    Text,
    Number,
    Integer,
    Boolean,
    Choice(Vec<String>),
}

/// The fields of a form's schema, in the schema's order.
pub fn form_fields(schema: &Value) -> Vec<Field> {
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return Vec::new();
    };
    properties
        .iter()
        .map(|(name, field)| Field {
            name: name.clone(),
            label: ["title", "description"]
                .iter()
                .find_map(|key| field.get(*key).and_then(Value::as_str).map(str::to_owned)),
            kind: field_kind(field),
            required: required.contains(&name.as_str()),
        })
        .collect()
}

fn field_kind(field: &Value) -> FieldKind {
    if let Some(options) = field.get("enum").and_then(Value::as_array) {
        return FieldKind::Choice(
            options.iter().filter_map(Value::as_str).map(str::to_owned).collect(),
        );
    }
    match field.get("type").and_then(Value::as_str) {
        Some("number") => FieldKind::Number,
        Some("integer") => FieldKind::Integer,
        Some("boolean") => FieldKind::Boolean,
        _ => FieldKind::Text,
    }
}

/// `text` as a value of `kind`, or why it is not one.
pub fn parse_value(kind: &FieldKind, text: &str) -> Result<Value, String> {
    let text = text.trim();
    match kind {
        FieldKind::Text => Ok(Value::String(text.to_owned())),
        FieldKind::Number => text
            .parse::<f64>()
            .ok()
            .and_then(|number| serde_json::Number::from_f64(number).map(Value::Number))
            .ok_or_else(|| format!("{text:?} is not a number")),
        FieldKind::Integer => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{text:?} is not a whole number")),
        FieldKind::Boolean => match text.to_lowercase().as_str() {
            "y" | "yes" | "true" | "да" | "д" => Ok(Value::Bool(true)),
            "n" | "no" | "false" | "нет" | "н" => Ok(Value::Bool(false)),
            _ => Err(format!("{text:?}: yes or no")),
        },
        FieldKind::Choice(options) => options
            .iter()
            .find(|option| option.eq_ignore_ascii_case(text))
            .map(|option| Value::String(option.clone()))
            .ok_or_else(|| format!("{text:?}: one of {}", options.join(", "))),
    }
}

/// A field's value as the user reads and edits it.
pub fn shown_value(values: &Map<String, Value>, name: &str) -> String {
    match values.get(name) {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Bool(true)) => "yes".into(),
        Some(Value::Bool(false)) => "no".into(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn fields_come_from_the_schema_and_values_are_read_as_their_type() {
        let schema = json!({
            "properties": {
                "name": {"type": "string", "title": "Your name"},
                "age": {"type": "integer"},
                "ok": {"type": "boolean"},
                "size": {"type": "string", "enum": ["S", "M"]}
            },
            "required": ["name"]
        });
        let fields = form_fields(&schema);
        let names: Vec<&str> = fields.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["name", "age", "ok", "size"]);
        assert!(fields[0].required && !fields[1].required);
        assert_eq!(fields[0].label.as_deref(), Some("Your name"));
        let cases: &[(&FieldKind, &str, Result<Value, ()>)] = &[
            (&fields[0].kind, " Ann ", Ok(json!("Ann"))),
            (&fields[1].kind, "42", Ok(json!(42))),
            (&fields[1].kind, "4.2", Err(())),
            (&fields[2].kind, "да", Ok(json!(true))),
            (&fields[2].kind, "maybe", Err(())),
            (&fields[3].kind, "m", Ok(json!("M"))),
            (&fields[3].kind, "XL", Err(())),
            (&FieldKind::Number, "2.5", Ok(json!(2.5))),
        ];
        for (kind, text, expected) in cases {
            assert_eq!(parse_value(kind, text).map_err(drop), *expected, "{kind:?} {text:?}");
        }
    }
}
