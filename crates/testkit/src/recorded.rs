//! A request as the scripted server received it, with readers for what tests assert on.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::render::Api;
use crate::script::Matcher;

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RecordedRequest {
    pub api: Api,
    pub path: String,
    /// Header names in lower case.
    pub headers: Vec<(String, String)>,
    pub body: Value,
    /// Refused with the context-length error: the request was over the script's limit.
    #[serde(default)]
    pub too_long: bool,
}

impl RecordedRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }

    /// The system prompt: OpenAI's system messages, Anthropic's `system` (text or blocks).
    pub fn system(&self) -> String {
        match self.api {
            Api::OpenAi => self
                .messages()
                .iter()
                .filter(|message| message["role"] == "system")
                .map(|message| text_of(&message["content"]))
                .collect::<Vec<_>>()
                .join("\n"),
            Api::Anthropic => text_of(&self.body["system"]),
        }
    }

    pub fn messages(&self) -> Vec<Value> {
        self.body["messages"].as_array().cloned().unwrap_or_default()
    }

    /// The text of the last message (all its text and tool-result blocks).
    pub fn last_message_text(&self) -> String {
        self.messages().last().map(|message| text_of(&message["content"])).unwrap_or_default()
    }

    /// The names of the tools offered.
    pub fn tool_names(&self) -> Vec<String> {
        let tools = self.body["tools"].as_array().cloned().unwrap_or_default();
        tools
            .iter()
            .filter_map(|tool| tool.pointer("/function/name").or_else(|| tool.get("name")))
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect()
    }

    pub(crate) fn matches(&self, when: &Matcher) -> bool {
        let system_ok =
            when.system_contains.as_ref().is_none_or(|text| self.system().contains(text.as_str()));
        let body_ok = when
            .body_contains
            .as_ref()
            .is_none_or(|text| self.body.to_string().contains(text.as_str()));
        system_ok && body_ok
    }
}

/// A content value as plain text: a string, or the texts of its blocks joined by newlines.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .map(|block| match block.get("text").or_else(|| block.get("content")) {
                Some(inner) => text_of(inner),
                None => String::new(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}
