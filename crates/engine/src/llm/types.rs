//! What a turn sends a model and what streams back, independent of any wire format.

use std::time::Duration;

use serde_json::Value;

use crate::chat::{Message, MessageBody, ToolCall};
use crate::tool::ToolSpec;

/// One model call: the stable system prompt, the conversation, the tools on offer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    pub system: String,
    pub messages: Vec<ModelMessage>,
    pub tools: Vec<ToolSpec>,
}

/// A message as models see it. Tool results answer the assistant message before them.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelMessage {
    User {
        content: String,
    },
    Assistant {
        content: String,
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        call_id: String,
        name: String,
        content: String,
        is_error: bool,
    },
}

impl ModelMessage {
    pub fn user(content: impl Into<String>) -> ModelMessage {
        ModelMessage::User {
            content: content.into(),
        }
    }

    /// The model's view of a stored message. Cards become their readable text; which stored
    /// messages a turn shows the model at all is the caller's choice.
    pub fn from_stored(message: &Message) -> ModelMessage {
        match &message.body {
            MessageBody::User { content, .. } => ModelMessage::user(content.clone()),
            MessageBody::Assistant {
                content, tool_calls, ..
            } => ModelMessage::Assistant {
                content: content.clone(),
                tool_calls: tool_calls.clone(),
            },
            MessageBody::Tool {
                tool_call_id,
                name,
                content,
                is_error,
            } => ModelMessage::Tool {
                call_id: tool_call_id.clone(),
                name: name.clone(),
                content: content.clone(),
                is_error: *is_error,
            },
        }
    }
}

/// What a provider's stream yields, in order: text deltas, then whole tool calls (their
/// argument fragments already joined), then usage, and `Finished` last, exactly once.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ToolCall(ToolCall),
    Usage(Usage),
    Finished(FinishReason),
}

/// Tokens counted by the provider (input includes cached prompt tokens).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
    }
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FinishReason {
    Stop,
    ToolCalls,
    /// The output hit the token limit.
    Length,
    ContentFilter,
    Other(String),
}

/// A whole answer: what `Provider::complete` returns.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelResponse {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Usage,
    pub finish: FinishReason,
}

/// How long to wait for a connection and for the next byte of a streaming answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    pub connect: Duration,
    /// Between two reads of the answer, and from the request to the response's head.
    /// Generous by default: a local model may think for minutes before its first token.
    pub idle: Duration,
}

impl Default for Timeouts {
    fn default() -> Timeouts {
        Timeouts {
            connect: Duration::from_secs(10),
            idle: Duration::from_secs(180),
        }
    }
}

/// A tool's input schema as provider APIs accept it: the JSON Schema draft marker that MCP
/// servers add (`$schema`) is refused by some providers, so it is dropped.
pub(crate) fn provider_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(fields) if fields.contains_key("$schema") => {
            let mut fields = fields.clone();
            fields.remove("$schema");
            Value::Object(fields)
        }
        Value::Object(_) => schema.clone(),
        _ => serde_json::json!({"type": "object", "properties": {}}),
    }
}

/// Tool arguments as JSON text: empty arguments (a tool without parameters) become `{}`.
pub(crate) fn arguments_or_empty_object(arguments: String) -> String {
    if arguments.trim().is_empty() {
        "{}".to_owned()
    } else {
        arguments
    }
}
