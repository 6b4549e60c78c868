//! The Anthropic Messages wire format. Pure: `to_request` builds the body, `parse_chunk`
//! reads one SSE data payload, `parse_error` classifies an error answer, [`Decoder`] turns
//! the events of one answer into [`StreamEvent`]s. Tested on recorded answers (`fixtures/`).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::Duration;

use preflight_protocol::chat::ImagePart;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use self::ResultContent::Text;
use crate::assemble::{ToolCallAssembler, ToolCallDelta};
use crate::error::error_for_status;
use crate::http::ChunkDecoder;
use crate::sse::SseEvent;
use crate::types::provider_schema;
use crate::{FinishReason, LlmError, ModelMessage, ModelRequest, StreamEvent, Usage, RECORD_TOOL};

/// The request body for a streaming call, serialised from borrowed parts. The system
/// prompt is marked for prompt caching: it is the stable prefix (tools and system); the
/// volatile tail rides at the end of the messages.
pub fn to_request<'a>(model: &'a str, max_tokens: u32, request: &'a ModelRequest) -> Request<'a> {
    let system = match request.system.is_empty() {
        true => Vec::new(),
        false => vec![SystemBlock {
            kind: "text",
            text: &request.system,
            cache_control: CacheControl { kind: "ephemeral" },
        }],
    };
    let tools = request
        .tools
        .iter()
        .map(|tool| WireTool {
            name: &tool.name,
            description: &tool.description,
            input_schema: provider_schema(&tool.input_schema),
        })
        .collect();
    Request { model, max_tokens, messages: messages(request), stream: true, system, tools }
}

/// The body of a Messages request (see [`to_request`]).
#[derive(Debug, Serialize)]
pub struct Request<'a> {
    model: &'a str,
    max_tokens: u32,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    system: Vec<SystemBlock<'a>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
}

#[derive(Debug, Serialize)]
struct SystemBlock<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
    cache_control: CacheControl,
}

#[derive(Debug, Serialize)]
struct CacheControl {
    #[serde(rename = "type")]
    kind: &'static str,
}

#[derive(Debug, Serialize)]
struct WireTool<'a> {
    name: &'a str,
    description: &'a str,
    input_schema: Cow<'a, Value>,
}

#[derive(Debug, Serialize)]
struct WireMessage<'a> {
    role: &'static str,
    content: Vec<Block<'a>>,
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text {
        text: Cow<'a, str>,
    },
    Image {
        source: ImageSource<'a>,
    },
    ToolUse {
        id: &'a str,
        name: &'a str,
        input: Value,
    },
    ToolResult {
        tool_use_id: &'a str,
        content: ResultContent<'a>,
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

/// An image as the API takes it inline (DESIGN §15): its bytes as base64.
#[derive(Debug, Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

/// A tool result's `content`: its text, or its text and then its images as blocks.
#[derive(Debug, Serialize)]
#[serde(untagged)]
enum ResultContent<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

impl<'a> ResultContent<'a> {
    fn new(text: Cow<'a, str>, images: &'a [ImagePart]) -> ResultContent<'a> {
        if images.is_empty() {
            return ResultContent::Text(text);
        }
        let mut blocks: Vec<Block<'a>> = text_block(text).into_iter().collect();
        blocks.extend(images.iter().map(image_block));
        ResultContent::Blocks(blocks)
    }
}

fn image_block(image: &ImagePart) -> Block<'_> {
    let source = ImageSource { kind: "base64", media_type: &image.media_type, data: &image.data };
    Block::Image { source }
}

/// Messages alternate user/assistant: tool results are user content, and consecutive
/// messages of one role are merged into one message of several blocks.
fn messages(request: &ModelRequest) -> Vec<WireMessage<'_>> {
    let mut merged: Vec<WireMessage<'_>> = Vec::new();
    let mut all: Vec<(&'static str, Vec<Block<'_>>)> = request
        .messages
        .iter()
        .enumerate()
        .flat_map(|(index, message)| blocks(request, index, message))
        .collect();
    if let Some(tail) = request.separate_tail() {
        all.push(("user", vec![Block::Text { text: Cow::Borrowed(tail) }]));
    }
    for (role, blocks) in all.into_iter().filter(|(_, blocks)| !blocks.is_empty()) {
        match merged.last_mut() {
            Some(last) if last.role == role => last.content.extend(blocks),
            _ => merged.push(WireMessage { role, content: blocks }),
        }
    }
    merged
}

/// The role and blocks of `message`: one message, or a record's three.
fn blocks<'a>(
    request: &'a ModelRequest,
    index: usize,
    message: &'a ModelMessage,
) -> Vec<(&'static str, Vec<Block<'a>>)> {
    let one = match message {
        // The images first, as the API's guide advises, and the words (and tail) last.
        ModelMessage::User { content, images } => {
            let mut blocks: Vec<Block<'a>> = images.iter().map(image_block).collect();
            blocks.extend(text_block(request.content_with_tail(index, content)));
            ("user", blocks)
        }
        ModelMessage::Assistant { content, tool_calls } => {
            let mut blocks: Vec<Block<'a>> =
                text_block(Cow::Borrowed(content)).into_iter().collect();
            blocks.extend(tool_calls.iter().map(|call| Block::ToolUse {
                id: &call.id,
                name: &call.name,
                input: tool_input(&call.arguments),
            }));
            ("assistant", blocks)
        }
        ModelMessage::Tool { call_id, content, is_error, images, .. } => {
            let content = ResultContent::new(request.content_with_tail(index, content), images);
            ("user", vec![Block::ToolResult { tool_use_id: call_id, content, is_error: *is_error }])
        }
        ModelMessage::Record { note, call_id, data } => {
            return record(request, index, note, call_id, data).into();
        }
    };
    vec![one]
}

/// Preflight's record: its words as the user's text, then its data as the result of a
/// `preflight_record` call (a tool result, which the model tells from the user's words).
fn record<'a>(
    request: &'a ModelRequest,
    index: usize,
    note: &'a str,
    call_id: &'a str,
    data: &'a str,
) -> [(&'static str, Vec<Block<'a>>); 3] {
    let call = Block::ToolUse { id: call_id, name: RECORD_TOOL, input: json!({}) };
    let content = request.content_with_tail(index, data);
    [
        ("user", text_block(Cow::Borrowed(note)).into_iter().collect()),
        ("assistant", vec![call]),
        (
            "user",
            vec![Block::ToolResult {
                tool_use_id: call_id,
                content: Text(content),
                is_error: false,
            }],
        ),
    ]
}

/// The API refuses empty text blocks.
fn text_block(text: Cow<'_, str>) -> Option<Block<'_>> {
    (!text.trim().is_empty()).then_some(Block::Text { text })
}

/// `tool_use.input` must be an object; arguments a model sent as broken JSON are kept
/// visible to it rather than dropped.
fn tool_input(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(Value::Object(object)) => Value::Object(object),
        _ => {
            let mut object = Map::new();
            object.insert("_unparsed_arguments".into(), Value::String(arguments.to_owned()));
            Value::Object(object)
        }
    }
}

/// One SSE data payload of a streaming answer (the `type` field names it).
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    MessageStart {
        usage: Usage,
    },
    TextStart {
        index: u32,
    },
    ToolUseStart {
        index: u32,
        id: String,
        name: String,
    },
    TextDelta {
        index: u32,
        text: String,
    },
    InputJsonDelta {
        index: u32,
        partial_json: String,
    },
    BlockStop {
        index: u32,
    },
    MessageDelta {
        stop_reason: Option<FinishReason>,
        output_tokens: Option<u64>,
    },
    MessageStop,
    /// `ping`, thinking blocks and anything newer: nothing to hand on.
    Ignored,
}

#[derive(Deserialize)]
struct WireEvent {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    index: u32,
    message: Option<WireStartMessage>,
    content_block: Option<Value>,
    delta: Option<Value>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireStartMessage {
    usage: Option<WireUsage>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    input_tokens: u64,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    output_tokens: Option<u64>,
}

/// Reads one data payload; an `error` event becomes the typed error it describes.
pub fn parse_chunk(data: &str) -> Result<Chunk, LlmError> {
    let event: WireEvent = serde_json::from_str(data)
        .map_err(|error| LlmError::bad_response(format!("{error} in event {}", preview(data))))?;
    let str_at = |value: &Option<Value>, key: &str| {
        value.as_ref().and_then(|v| v.get(key)).and_then(Value::as_str).map(str::to_owned)
    };
    Ok(match event.kind.as_str() {
        "message_start" => Chunk::MessageStart { usage: start_usage(event.message) },
        "content_block_start" => match str_at(&event.content_block, "type").as_deref() {
            Some("text") => Chunk::TextStart { index: event.index },
            Some("tool_use") => Chunk::ToolUseStart {
                index: event.index,
                id: str_at(&event.content_block, "id").unwrap_or_default(),
                name: str_at(&event.content_block, "name").unwrap_or_default(),
            },
            _ => Chunk::Ignored,
        },
        "content_block_delta" => match str_at(&event.delta, "type").as_deref() {
            Some("text_delta") => Chunk::TextDelta {
                index: event.index,
                text: str_at(&event.delta, "text").unwrap_or_default(),
            },
            Some("input_json_delta") => Chunk::InputJsonDelta {
                index: event.index,
                partial_json: str_at(&event.delta, "partial_json").unwrap_or_default(),
            },
            _ => Chunk::Ignored,
        },
        "content_block_stop" => Chunk::BlockStop { index: event.index },
        "message_delta" => Chunk::MessageDelta {
            stop_reason: str_at(&event.delta, "stop_reason").as_deref().map(stop_reason),
            output_tokens: event.usage.and_then(|usage| usage.output_tokens),
        },
        "message_stop" => Chunk::MessageStop,
        "error" => return Err(classify(None, None, event.error.as_ref().unwrap_or(&Value::Null))),
        _ => Chunk::Ignored,
    })
}

/// Input counts every prompt token, cached or not; the cached are those read from the cache
/// (tokens written to it are billed as input, and more).
fn start_usage(message: Option<WireStartMessage>) -> Usage {
    let usage = message.and_then(|message| message.usage).unwrap_or_default();
    let cached = usage.cache_read_input_tokens.unwrap_or(0);
    Usage {
        input_tokens: usage.input_tokens + usage.cache_creation_input_tokens.unwrap_or(0) + cached,
        output_tokens: usage.output_tokens.unwrap_or(0),
        cached_input_tokens: cached,
    }
}

fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" | "model_context_window_exceeded" => FinishReason::Length,
        "refusal" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Classifies an error answer `{"type":"error","error":{"type","message"}}`.
pub fn parse_error(status: u16, retry_after: Option<Duration>, body: &str) -> LlmError {
    let value =
        serde_json::from_str::<Value>(body).unwrap_or_else(|_| json!({"error": {"message": body}}));
    classify(Some(status), retry_after, value.get("error").unwrap_or(&value))
}

fn classify(status: Option<u16>, retry_after: Option<Duration>, error: &Value) -> LlmError {
    let field = |name: &str| error.get(name).and_then(Value::as_str).unwrap_or_default();
    let message = preview(match field("message") {
        "" => "no message",
        message => message,
    });
    let kind = field("type");
    if message.to_lowercase().contains("prompt is too long") || kind == "request_too_large" {
        return LlmError::ContextTooLong { message };
    }
    match (status, kind) {
        (Some(status), _) => error_for_status(status, retry_after, message),
        (None, "rate_limit_error") => LlmError::RateLimited { retry_after: None, message },
        (None, "authentication_error" | "permission_error") => {
            LlmError::Unauthorized { status: 401, message }
        }
        (None, _) => LlmError::Unavailable { status: None, message },
    }
}

fn preview(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Turns the events of one answer into stream events: text as it comes, tool calls whole
/// when the answer ends.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    calls: ToolCallAssembler,
    usage: Usage,
    stop: Option<FinishReason>,
    done: bool,
}

impl Decoder {
    pub(crate) fn boxed() -> Box<dyn ChunkDecoder> {
        Box::new(Decoder::default())
    }

    fn flush(&mut self, out: &mut VecDeque<StreamEvent>) {
        self.done = true;
        out.extend(self.calls.finish().into_iter().map(StreamEvent::ToolCall));
        out.push_back(StreamEvent::Usage(self.usage));
        out.push_back(StreamEvent::Finished(self.stop.take().unwrap_or(FinishReason::Stop)));
    }
}

impl ChunkDecoder for Decoder {
    fn decode(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), LlmError> {
        match parse_chunk(&event.data)? {
            Chunk::MessageStart { usage } => self.usage = usage,
            Chunk::TextDelta { text, .. } if !text.is_empty() => {
                out.push_back(StreamEvent::TextDelta(text))
            }
            Chunk::ToolUseStart { index, id, name } => self.calls.push(ToolCallDelta {
                index,
                id: Some(id),
                name: Some(name),
                arguments: None,
            }),
            Chunk::InputJsonDelta { index, partial_json } => self.calls.push(ToolCallDelta {
                index,
                arguments: Some(partial_json),
                ..ToolCallDelta::default()
            }),
            Chunk::MessageDelta { stop_reason, output_tokens } => {
                self.stop = stop_reason.or(self.stop.take());
                self.usage.output_tokens = output_tokens.unwrap_or(self.usage.output_tokens);
            }
            Chunk::MessageStop => self.flush(out),
            Chunk::TextStart { .. }
            | Chunk::TextDelta { .. }
            | Chunk::BlockStop { .. }
            | Chunk::Ignored => {}
        }
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    /// Without `message_stop`, an answer that gave its stop reason is complete.
    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        match (self.done, &self.stop) {
            (true, _) => Ok(()),
            (false, Some(_)) => {
                self.flush(out);
                Ok(())
            }
            (false, None) => Err(LlmError::StreamCut {
                detail: "the connection closed before the answer finished".into(),
            }),
        }
    }
}

#[cfg(test)]
mod tests;
