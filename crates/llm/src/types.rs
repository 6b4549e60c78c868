//! What a turn sends a model and what streams back, independent of any wire format.

use std::borrow::Cow;
use std::time::Duration;

use preflight_protocol::chat::{ImagePart, Message, MessageBody, ToolCall};
use preflight_protocol::ids::MessageId;
use preflight_protocol::tool::ToolSpec;
use serde_json::Value;

use super::record;

/// One model call: the stable system prompt, the conversation, the tools on offer, and a
/// volatile tail for the very end.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelRequest {
    pub system: String,
    pub messages: Vec<ModelMessage>,
    pub tools: Vec<ToolSpec>,
    /// Text that changes from call to call (the `[state]` block, a reminder). Every wire
    /// format sends it at the end of the conversation, never in the system prompt, so the
    /// prefix stays cacheable: appended to the last message when that is the user's or a
    /// tool result, else as a user message of its own.
    pub tail: Option<String>,
    /// The shape the answer must take; providers that cannot constrain output ignore it.
    pub output: OutputConstraint,
}

/// What a model may answer. Only a provider that samples tokens itself (the embedded model)
/// can enforce it; a remote API gets the same prompt and is parsed as tolerantly either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum OutputConstraint {
    /// Any text (and tool calls).
    #[default]
    Free,
    /// A planner turn: exactly one ```plan-questions or ```plan fence holding the JSON shapes
    /// of DESIGN §3.
    PlannerFence,
}

impl ModelRequest {
    fn tail_text(&self) -> Option<&str> {
        self.tail.as_deref().filter(|tail| !tail.is_empty())
    }

    /// The content message `index` is sent with: its own, plus the tail if it goes there.
    pub fn content_with_tail<'a>(&'a self, index: usize, content: &'a str) -> Cow<'a, str> {
        match self.tail_text() {
            Some(tail) if index + 1 == self.messages.len() && !self.tail_is_separate() => {
                Cow::Owned(format!("{content}\n\n{tail}"))
            }
            _ => Cow::Borrowed(content),
        }
    }

    /// The tail when it rides on the last message (that is the user's, a tool result or a
    /// record): for a wire format that sends more after that message's text.
    pub fn joined_tail(&self) -> Option<&str> {
        self.tail_text().filter(|_| !self.tail_is_separate())
    }

    /// The tail when it travels as a user message of its own (the last message is the
    /// assistant's, or there is none).
    pub fn separate_tail(&self) -> Option<&str> {
        self.tail_text().filter(|_| self.tail_is_separate())
    }

    fn tail_is_separate(&self) -> bool {
        !matches!(
            self.messages.last(),
            Some(
                ModelMessage::User { .. } | ModelMessage::Tool { .. } | ModelMessage::Record { .. }
            )
        )
    }
}

/// A message as models see it. Tool results answer the assistant message before them.
/// `images` (a user's attached images, a tool's returned ones) go to the model beside the
/// text in each wire format's image parts; [`ModelMessage::from_stored`] never reads them
/// from disk (it is pure), so they are empty until the history's builder loads them.
#[derive(Debug, Clone, PartialEq)]
pub enum ModelMessage {
    User {
        content: String,
        images: Vec<ImagePart>,
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
        images: Vec<ImagePart>,
    },
    /// Preflight's own words with data beside them that must never pass for the user's
    /// (names of workspace files, a check's output): every wire format sends `note` as a
    /// user message, then `data` as the result of a call `call_id` of
    /// [`RECORD_TOOL`](crate::RECORD_TOOL) that Preflight made (`llm/record.rs`).
    Record {
        note: String,
        call_id: String,
        data: String,
    },
}

impl ModelMessage {
    pub fn user(content: impl Into<String>) -> ModelMessage {
        ModelMessage::User { content: content.into(), images: Vec::new() }
    }

    /// The images this message shows the model.
    pub fn images(&self) -> &[ImagePart] {
        match self {
            ModelMessage::User { images, .. } | ModelMessage::Tool { images, .. } => images,
            ModelMessage::Assistant { .. } | ModelMessage::Record { .. } => &[],
        }
    }

    /// The images this message shows the model, to add to or take from.
    pub fn images_mut(&mut self) -> Option<&mut Vec<ImagePart>> {
        match self {
            ModelMessage::User { images, .. } | ModelMessage::Tool { images, .. } => Some(images),
            ModelMessage::Assistant { .. } | ModelMessage::Record { .. } => None,
        }
    }

    /// Preflight's record of message `id`: its note and its data (`llm/record.rs`).
    fn record(id: &MessageId, (note, data): (String, String)) -> ModelMessage {
        ModelMessage::Record { note, call_id: record::call_id(id), data }
    }

    /// The model's view of a stored message. Cards become their readable text; a restore
    /// and a Continue become Preflight's records (their file names and output as data);
    /// which stored messages a turn shows the model at all is the caller's choice.
    pub fn from_stored(message: &Message) -> ModelMessage {
        match &message.body {
            MessageBody::User { restored: Some(restored), .. } => {
                ModelMessage::record(&message.id, record::restore_record(restored))
            }
            MessageBody::User { resume: Some(_), stopped, content, .. } => ModelMessage::record(
                &message.id,
                record::continue_record(stopped.as_deref(), content),
            ),
            MessageBody::User { content, attachments, .. } if !attachments.is_empty() => {
                ModelMessage::user(format!(
                    "{content}{}",
                    preflight_protocol::chat::attachments_note(attachments)
                ))
            }
            // Stored before attachments were copied: the paths as sent.
            MessageBody::User { content, files, .. } if !files.is_empty() => {
                ModelMessage::user(format!("{content}\n\nAttached files: {}", files.join(", ")))
            }
            MessageBody::User { content, .. } => ModelMessage::user(content.clone()),
            MessageBody::Assistant { content, tool_calls, .. } => {
                ModelMessage::Assistant { content: content.clone(), tool_calls: tool_calls.clone() }
            }
            MessageBody::Tool { tool_call_id, name, content, is_error, .. } => ModelMessage::Tool {
                call_id: tool_call_id.clone(),
                name: name.clone(),
                content: content.clone(),
                is_error: *is_error,
                images: Vec::new(),
            },
            MessageBody::Compaction { content, .. } => {
                ModelMessage::user(format!("{}\n{content}", crate::SUMMARY_HEADER))
            }
        }
    }
}

/// How a compaction's summary opens where it stands in the model's view (DESIGN §13).
pub const SUMMARY_HEADER: &str = "[Summary by Preflight of earlier messages of this conversation, which no longer fit the model's context]";

/// What a provider's stream yields, in order: text deltas, then whole tool calls (their
/// argument fragments already joined), then usage, and `Finished` last, exactly once.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ToolCall(ToolCall),
    Usage(Usage),
    Finished(FinishReason),
}

/// Tokens counted by the provider. `input_tokens` counts every prompt token, cached or not;
/// `cached_input_tokens` says how many of them were read from the provider's prompt cache
/// (OpenAI's `prompt_tokens_details.cached_tokens`, Anthropic's `cache_read_input_tokens`),
/// which providers bill lower.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
}

impl Usage {
    pub fn add(&mut self, other: Usage) {
        self.input_tokens += other.input_tokens;
        self.output_tokens += other.output_tokens;
        self.cached_input_tokens += other.cached_input_tokens;
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
        Timeouts { connect: Duration::from_secs(10), idle: Duration::from_secs(180) }
    }
}

/// A tool's input schema as provider APIs accept it: the JSON Schema draft marker that MCP
/// servers add (`$schema`) is refused by some providers, so it is dropped.
pub(crate) fn provider_schema(schema: &Value) -> Cow<'_, Value> {
    match schema {
        Value::Object(fields) if fields.contains_key("$schema") => {
            let mut fields = fields.clone();
            fields.remove("$schema");
            Cow::Owned(Value::Object(fields))
        }
        Value::Object(_) => Cow::Borrowed(schema),
        _ => Cow::Owned(serde_json::json!({"type": "object", "properties": {}})),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn request(messages: Vec<ModelMessage>, tail: Option<&str>) -> ModelRequest {
        ModelRequest { messages, tail: tail.map(str::to_owned), ..ModelRequest::default() }
    }

    #[test]
    fn the_tail_rides_on_the_last_user_or_tool_message_or_comes_alone() {
        let user =
            request(vec![ModelMessage::user("a"), ModelMessage::user("do it")], Some("[state]"));
        assert_eq!(user.content_with_tail(0, "a"), "a");
        assert_eq!(user.content_with_tail(1, "do it"), "do it\n\n[state]");
        assert_eq!(user.separate_tail(), None);
        let tool = ModelMessage::Tool {
            call_id: "c".into(),
            name: "t".into(),
            content: "r".into(),
            is_error: false,
            images: vec![],
        };
        assert_eq!(request(vec![tool], Some("[state]")).content_with_tail(0, "r"), "r\n\n[state]");
        let assistant = request(
            vec![ModelMessage::Assistant { content: "hi".into(), tool_calls: vec![] }],
            Some("[state]"),
        );
        assert_eq!(
            (assistant.content_with_tail(0, "hi"), assistant.separate_tail()),
            (Cow::Borrowed("hi"), Some("[state]"))
        );
        assert_eq!(request(vec![], Some("x")).separate_tail(), Some("x"));
        let empty = request(vec![ModelMessage::user("u")], Some(""));
        assert_eq!(
            (empty.content_with_tail(0, "u"), empty.separate_tail()),
            (Cow::Borrowed("u"), None)
        );
    }
}
