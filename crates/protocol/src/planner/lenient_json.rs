//! JSON as models write it: trailing commas, comments, raw newlines in strings, typographic
//! quotes, prose around the value. Repaired into strict JSON, then parsed by serde_json.

use serde_json::Value;

/// Parses `text` as one JSON value, repairing the slips models make. The error is written
/// for the model that produced the text (it is shown to it in the repair attempt).
pub(super) fn parse_lenient(text: &str) -> Result<Value, String> {
    // Prose before the value may hold apostrophes: start repairing where the value starts.
    let start = text.find(['{', '[']).unwrap_or(0);
    let cleaned = repair(&text[start..]);
    let candidate = extract_value(&cleaned).unwrap_or(cleaned.trim());
    if candidate.is_empty() {
        return Err("the fence is empty: expected a JSON object".to_string());
    }
    serde_json::from_str(candidate).map_err(|error| format!("invalid JSON: {error}"))
}

/// The outermost `{…}` or `[…]` of `text`, skipping prose before and after it.
fn extract_value(text: &str) -> Option<&str> {
    let start = text.find(['{', '['])?;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (index, c) in text[start..].char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(&text[start..start + index + 1]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Rewrites `text` into strict JSON where the slip is unambiguous. Never panics.
fn repair(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    // The quote that opened the string being copied: `"`, a typographic one, or `'`.
    let mut string: Option<char> = None;
    let mut escaped = false;
    let mut index = 0;
    while index < chars.len() {
        let c = chars[index];
        if let Some(opening) = string {
            if push_string_char(&mut out, c, opening, &mut escaped) {
                string = None;
            }
            index += 1;
            continue;
        }
        match c {
            '"' | '\u{201C}' | '\u{201D}' | '\'' => {
                string = Some(c);
                out.push('"');
            }
            '/' if chars.get(index + 1) == Some(&'/') => {
                index = skip_line_comment(&chars, index);
                continue;
            }
            '/' if chars.get(index + 1) == Some(&'*') => {
                index = skip_block_comment(&chars, index);
                continue;
            }
            ',' if closes_after(&chars, index + 1) => {}
            c if c.is_ascii_alphabetic() => {
                let word: String =
                    chars[index..].iter().take_while(|c| c.is_ascii_alphanumeric()).collect();
                out.push_str(python_literal(&word).unwrap_or(&word));
                index += word.chars().count();
                continue;
            }
            _ => out.push(c),
        }
        index += 1;
    }
    out
}

/// `True`, `False`, `None`: what a model that thinks in Python writes for JSON literals.
fn python_literal(word: &str) -> Option<&'static str> {
    match word {
        "True" => Some("true"),
        "False" => Some("false"),
        "None" => Some("null"),
        _ => None,
    }
}

/// Copies one character of a string opened by `opening`; true when it closes the string.
fn push_string_char(out: &mut String, c: char, opening: char, escaped: &mut bool) -> bool {
    if *escaped {
        *escaped = false;
        // `\'` is only an escape inside single-quoted strings; JSON has no such escape.
        if c == '\'' {
            out.pop();
        }
        out.push(c);
        return false;
    }
    let closes = match opening {
        '"' => c == '"',
        '\'' => c == '\'',
        _ => matches!(c, '"' | '\u{201C}' | '\u{201D}'),
    };
    match c {
        _ if closes => {
            out.push('"');
            return true;
        }
        '\\' => {
            *escaped = true;
            out.push(c);
        }
        '"' => out.push_str("\\\""),
        '\n' => out.push_str("\\n"),
        '\t' => out.push_str("\\t"),
        '\r' => {}
        c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
        c => out.push(c),
    }
    false
}

fn skip_line_comment(chars: &[char], from: usize) -> usize {
    let mut index = from;
    while index < chars.len() && chars[index] != '\n' {
        index += 1;
    }
    index
}

fn skip_block_comment(chars: &[char], from: usize) -> usize {
    let mut index = from + 2;
    while index + 1 < chars.len() && !(chars[index] == '*' && chars[index + 1] == '/') {
        index += 1;
    }
    (index + 2).min(chars.len())
}

/// Whether only whitespace and comments stand between `from` and a `}` or `]`.
fn closes_after(chars: &[char], from: usize) -> bool {
    let mut index = from;
    while index < chars.len() {
        match chars[index] {
            c if c.is_whitespace() => index += 1,
            '/' if chars.get(index + 1) == Some(&'/') => index = skip_line_comment(chars, index),
            '/' if chars.get(index + 1) == Some(&'*') => index = skip_block_comment(chars, index),
            '}' | ']' => return true,
            _ => return false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn repairs_what_models_get_wrong() {
        let cases = [
            (r#"{"a": [1, 2,], }"#, json!({"a": [1, 2]})),
            ("{\"a\": \"line one\nline two\"}", json!({"a": "line one\nline two"})),
            ("{\"a\": 1 // why\n}", json!({"a": 1})),
            ("{/* note */ \"a\": 1}", json!({"a": 1})),
            ("{\u{201C}a\u{201D}: \u{201C}b\u{201D}}", json!({"a": "b"})),
            ("Here it is:\n{\"a\": 1}\nHope that helps.", json!({"a": 1})),
            (r#"{"url": "http://x//y", "s": "a,}"}"#, json!({"url": "http://x//y", "s": "a,}"})),
            (r#"[{"a": "\"quoted\""},]"#, json!([{"a": "\"quoted\""}])),
            ("{\"a\": \"tab\there\"}", json!({"a": "tab\there"})),
            (
                "{'a': 'it\\'s \"fine\"', 'b': True, 'c': None}",
                json!({"a": "it's \"fine\"", "b": true, "c": null}),
            ),
            (
                "Here's it: {\"a\": \"He said \u{201C}hi\u{201D}\"}",
                json!({"a": "He said \u{201C}hi\u{201D}"}),
            ),
            (
                "{\"a\": \"Don't\", \"b\": \"None of True\"}",
                json!({"a": "Don't", "b": "None of True"}),
            ),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_lenient(input), Ok(expected), "input: {input:?}");
        }
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(parse_lenient("").unwrap_err().contains("empty"));
        assert!(parse_lenient("{\"a\": }").unwrap_err().starts_with("invalid JSON"));
        assert!(parse_lenient("{\"a\": 1").unwrap_err().starts_with("invalid JSON"));
    }
}
