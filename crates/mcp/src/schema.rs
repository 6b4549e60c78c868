//! Tool input schemas made acceptable to provider APIs. Pure.
//!
//! MCP servers send full JSON Schema documents (the filesystem server's carry a draft-07
//! `$schema`), while provider APIs want the plain object schema of the arguments: some
//! reject `$schema`, and every one wants `"type": "object"` with `properties` at the top.
//! Nothing else is changed, so a schema stays the server's own contract.

use serde_json::{Map, Value};

/// `schema` without any `$schema` keyword, and with `type: object` and `properties` at the
/// top (the arguments of an MCP tool call are always an object).
pub fn clean_schema(schema: &Map<String, Value>) -> Value {
    let mut cleaned = schema.clone();
    strip_schema_keyword(&mut cleaned);
    cleaned.insert("type".into(), Value::String("object".into()));
    if !matches!(cleaned.get("properties"), Some(Value::Object(_))) {
        cleaned.insert("properties".into(), Value::Object(Map::new()));
    }
    Value::Object(cleaned)
}

/// Removes `$schema` everywhere: some servers repeat it in definitions they inline.
fn strip_schema_keyword(object: &mut Map<String, Value>) {
    object.shift_remove("$schema");
    for value in object.values_mut() {
        strip_in_value(value);
    }
}

fn strip_in_value(value: &mut Value) {
    match value {
        Value::Object(object) => strip_schema_keyword(object),
        Value::Array(items) => items.iter_mut().for_each(strip_in_value),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn clean(value: Value) -> Value {
        clean_schema(value.as_object().expect("an object"))
    }

    #[test]
    fn cleans_schemas_for_provider_apis() {
        let table = [
            // The filesystem server's shape: `$schema` goes, the rest stays as it was.
            (
                json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"],
                       "additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}),
                json!({"type":"object","properties":{"path":{"type":"string"}},"required":["path"],
                       "additionalProperties":false}),
            ),
            // Nested copies of `$schema`, in objects and arrays.
            (
                json!({"type":"object","properties":{"a":{"$schema":"x","anyOf":[{"$schema":"y","type":"string"}]}}}),
                json!({"type":"object","properties":{"a":{"anyOf":[{"type":"string"}]}}}),
            ),
            // No `type`, no `properties`: both are supplied.
            (json!({}), json!({"type":"object","properties":{}})),
            (json!({"$schema":"x"}), json!({"type":"object","properties":{}})),
            // Only the keyword goes: text that mentions it stays.
            (
                json!({"type":"object","properties":{"p":{"type":"string","description":"no $schema here"}}}),
                json!({"type":"object","properties":{"p":{"type":"string","description":"no $schema here"}}}),
            ),
        ];
        for (input, want) in table {
            assert_eq!(clean(input.clone()), want, "{input}");
        }
    }

    #[test]
    fn key_order_is_kept() {
        let cleaned = clean(
            json!({"$schema":"x","type":"object","properties":{"b":{},"a":{}},"required":["b"]}),
        );
        let keys: Vec<&String> = cleaned.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["type", "properties", "required"]);
        let props: Vec<&String> = cleaned["properties"].as_object().unwrap().keys().collect();
        assert_eq!(props, ["b", "a"]);
    }
}
