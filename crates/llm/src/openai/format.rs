//! The OpenAI chat-completions wire format, as OpenAI, Ollama, llama.cpp's server, vLLM and
//! LM Studio speak it. Pure: `to_request` builds the body, `parse_chunk` reads one SSE data
//! payload, `parse_error` classifies an error answer, [`Decoder`] turns a stream of chunks
//! into [`StreamEvent`]s. Tested on recorded answers of each server (`fixtures/`).

use std::borrow::Cow;
use std::collections::VecDeque;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use self::parts::UserContent::{self, Parts, Text};
use self::parts::{images_follow, tool_images};
use crate::assemble::{ToolCallAssembler, ToolCallDelta};
use crate::compat::Quirks;
use crate::error::error_for_status;
use crate::http::ChunkDecoder;
use crate::sse::SseEvent;
use crate::types::provider_schema;
use crate::{FinishReason, LlmError, ModelMessage, ModelRequest, StreamEvent, Usage, RECORD_TOOL};

/// The request body, serialised straight from borrowed parts (the history can be long: no
/// copy of it is made). Streamed, with usage asked for in the last chunk, unless the server's
/// `quirks` want whole answers.
pub fn to_request<'a>(
    model: &'a str,
    max_tokens: Option<u32>,
    request: &'a ModelRequest,
    quirks: Quirks,
) -> Request<'a> {
    let mut messages = Vec::with_capacity(request.messages.len() + 2);
    if !request.system.is_empty() {
        messages.push(WireMessage::System { content: &request.system });
    }
    for (index, each) in request.messages.iter().enumerate() {
        push_message(&mut messages, request, index, each);
        if images_follow(request, index) {
            messages.push(WireMessage::User { content: Parts(tool_images(request, index)) });
        }
    }
    if let Some(tail) = request.separate_tail() {
        messages.push(WireMessage::User { content: Text(Cow::Borrowed(tail)) });
    }
    let tools = request
        .tools
        .iter()
        .map(|tool| WireTool {
            kind: "function",
            function: WireFunctionSpec {
                name: &tool.name,
                description: &tool.description,
                parameters: provider_schema(&tool.input_schema),
            },
        })
        .collect();
    if quirks.assistant_text_always {
        for message in &mut messages {
            if let WireMessage::Assistant { content: content @ None, .. } = message {
                *content = Some("");
            }
        }
    }
    let tool_choice = (quirks.tool_choice_auto && !request.tools.is_empty()).then_some("auto");
    Request {
        model,
        messages,
        stream: !quirks.whole_answers,
        stream_options: (!quirks.whole_answers).then_some(StreamOptions { include_usage: true }),
        tools,
        tool_choice,
        max_tokens,
    }
}

/// The body of a chat-completions request (see [`to_request`]).
#[derive(Debug, Serialize)]
pub struct Request<'a> {
    model: &'a str,
    messages: Vec<WireMessage<'a>>,
    stream: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    stream_options: Option<StreamOptions>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tools: Vec<WireTool<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    tool_choice: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_tokens: Option<u32>,
}

#[derive(Debug, Serialize)]
struct StreamOptions {
    include_usage: bool,
}

#[derive(Debug, Serialize)]
#[serde(tag = "role", rename_all = "lowercase")]
enum WireMessage<'a> {
    System {
        content: &'a str,
    },
    User {
        content: UserContent<'a>,
    },
    /// `content` is null when the message only calls tools, as the API documents.
    Assistant {
        content: Option<&'a str>,
        #[serde(skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<WireCall<'a>>,
    },
    Tool {
        tool_call_id: &'a str,
        content: Cow<'a, str>,
    },
}

#[derive(Debug, Serialize)]
struct WireCall<'a> {
    id: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionCall<'a>,
}

#[derive(Debug, Serialize)]
struct WireFunctionCall<'a> {
    name: &'a str,
    arguments: &'a str,
}

#[derive(Debug, Serialize)]
struct WireTool<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    function: WireFunctionSpec<'a>,
}

#[derive(Debug, Serialize)]
struct WireFunctionSpec<'a> {
    name: &'a str,
    description: &'a str,
    parameters: Cow<'a, Value>,
}

/// The wire message(s) of `message`: one, or a record's three.
fn push_message<'a>(
    out: &mut Vec<WireMessage<'a>>,
    request: &'a ModelRequest,
    index: usize,
    message: &'a ModelMessage,
) {
    let wire = match message {
        ModelMessage::User { content, images } => WireMessage::User {
            content: UserContent::new(request.content_with_tail(index, content), images),
        },
        ModelMessage::Record { note, call_id, data } => {
            out.extend(record(request, index, note, call_id, data));
            return;
        }
        ModelMessage::Assistant { content, tool_calls } => WireMessage::Assistant {
            content: (tool_calls.is_empty() || !content.is_empty()).then_some(content.as_str()),
            tool_calls: tool_calls
                .iter()
                .map(|call| WireCall {
                    id: &call.id,
                    kind: "function",
                    function: WireFunctionCall { name: &call.name, arguments: &call.arguments },
                })
                .collect(),
        },
        // The API has no error flag on tool results: the model reads it in the text.
        ModelMessage::Tool { call_id, content, is_error, .. } => {
            // The round's images message, when one follows, carries the tail instead.
            let content = match images_follow(request, index) {
                true => Cow::Borrowed(content.as_str()),
                false => request.content_with_tail(index, content),
            };
            let content = match content {
                text if *is_error => Cow::Owned(format!("Error: {text}")),
                text => text,
            };
            WireMessage::Tool { tool_call_id: call_id, content }
        }
    };
    out.push(wire);
}

/// Preflight's record: its words as the user's, then its data as the result of a
/// `preflight_record` call (a tool role the model tells from the user's words).
fn record<'a>(
    request: &'a ModelRequest,
    index: usize,
    note: &'a str,
    call_id: &'a str,
    data: &'a str,
) -> [WireMessage<'a>; 3] {
    let call = WireCall {
        id: call_id,
        kind: "function",
        function: WireFunctionCall { name: RECORD_TOOL, arguments: "{}" },
    };
    [
        WireMessage::User { content: Text(Cow::Borrowed(note)) },
        WireMessage::Assistant { content: None, tool_calls: vec![call] },
        WireMessage::Tool {
            tool_call_id: call_id,
            content: request.content_with_tail(index, data),
        },
    ]
}

/// One SSE data payload of a streaming answer.
#[derive(Debug, Clone, PartialEq)]
pub enum Chunk {
    /// `[DONE]`: the answer is over.
    Done,
    Delta {
        text: Option<String>,
        tool_calls: Vec<ToolCallDelta>,
        finish: Option<FinishReason>,
        usage: Option<Usage>,
    },
}

#[derive(Deserialize)]
struct WireChunk {
    #[serde(default)]
    choices: Vec<WireChoice>,
    usage: Option<WireUsage>,
    error: Option<Value>,
}

#[derive(Deserialize)]
struct WireChoice {
    /// A chunk's `delta`, or a whole answer's `message` (read as one chunk: see `http.rs`).
    #[serde(alias = "message")]
    delta: Option<WireDelta>,
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct WireDelta {
    content: Option<String>,
    tool_calls: Option<Vec<WireToolCall>>,
}

#[derive(Deserialize)]
struct WireToolCall {
    index: Option<u32>,
    id: Option<String>,
    function: Option<WireFunction>,
}

#[derive(Deserialize)]
struct WireFunction {
    name: Option<String>,
    /// A string everywhere but in a few servers' whole calls, which send the object.
    arguments: Option<Value>,
}

#[derive(Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    /// OpenAI's and vLLM's count of the prompt tokens read from the prompt cache.
    prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Deserialize)]
struct PromptTokensDetails {
    #[serde(default)]
    cached_tokens: Option<u64>,
}

/// Reads one data payload. An `error` object in the stream (vLLM, llama.cpp, proxies)
/// becomes the typed error it describes.
pub fn parse_chunk(data: &str) -> Result<Chunk, LlmError> {
    if data.trim() == "[DONE]" {
        return Ok(Chunk::Done);
    }
    let chunk: WireChunk = serde_json::from_str(data)
        .map_err(|error| LlmError::bad_response(format!("{error} in chunk {}", preview(data))))?;
    if let Some(error) = chunk.error {
        return Err(classify(None, None, &error));
    }
    // Only one choice is ever asked for (no `n`).
    let choice = chunk.choices.into_iter().next();
    let (delta, finish) = match choice {
        Some(choice) => (choice.delta, choice.finish_reason),
        None => (None, None),
    };
    let (text, calls) = match delta {
        Some(delta) => {
            (delta.content.filter(|text| !text.is_empty()), delta.tool_calls.unwrap_or_default())
        }
        None => (None, Vec::new()),
    };
    Ok(Chunk::Delta {
        text,
        tool_calls: calls.into_iter().enumerate().map(tool_call_delta).collect(),
        finish: finish.as_deref().map(finish_reason),
        usage: chunk.usage.map(|usage| Usage {
            input_tokens: usage.prompt_tokens,
            output_tokens: usage.completion_tokens,
            cached_input_tokens: usage
                .prompt_tokens_details
                .and_then(|details| details.cached_tokens)
                .unwrap_or(0),
        }),
    })
}

fn tool_call_delta((position, call): (usize, WireToolCall)) -> ToolCallDelta {
    let (name, arguments) = match call.function {
        Some(function) => (function.name, function.arguments),
        None => (None, None),
    };
    ToolCallDelta {
        index: call.index.unwrap_or(position as u32),
        id: call.id,
        name,
        arguments: arguments.map(|arguments| match arguments {
            Value::String(text) => text,
            other => other.to_string(),
        }),
    }
}

fn finish_reason(reason: &str) -> FinishReason {
    match reason {
        "stop" => FinishReason::Stop,
        "tool_calls" | "function_call" => FinishReason::ToolCalls,
        "length" => FinishReason::Length,
        "content_filter" => FinishReason::ContentFilter,
        other => FinishReason::Other(other.to_owned()),
    }
}

/// Classifies an error answer: status first, refined by what the body says.
pub fn parse_error(status: u16, retry_after: Option<Duration>, body: &str) -> LlmError {
    let value =
        serde_json::from_str::<Value>(body).unwrap_or_else(|_| json!({"error": {"message": body}}));
    classify(Some(status), retry_after, value.get("error").unwrap_or(&value))
}

/// `error` is the API's error object: `{message, type, code}`, or Ollama's bare string.
fn classify(status: Option<u16>, retry_after: Option<Duration>, error: &Value) -> LlmError {
    let field = |name: &str| error.get(name).and_then(Value::as_str).unwrap_or_default();
    let message = match error {
        Value::String(text) => text.clone(),
        _ => field("message").to_owned(),
    };
    let message = preview(if message.is_empty() { "no message" } else { &message });
    let code = field("code");
    if is_context_too_long(code, field("type"), &message) {
        return LlmError::ContextTooLong { message };
    }
    if status.is_some_and(|status| status >= 500) && is_validation_failure(&message) {
        // llama-cpp-python's server answers a request its schema refuses with a 500: the
        // same request would fail again, so it is the request that is refused.
        return LlmError::Rejected { status: status.unwrap_or(500), message };
    }
    match status {
        Some(429) if code == "insufficient_quota" => LlmError::Rejected { status: 429, message },
        Some(status) => error_for_status(status, retry_after, message),
        // In the stream: the server gave up mid-answer.
        None => LlmError::Unavailable { status: None, message },
    }
}

/// pydantic's summary line, "1 validation error for …" or "7 validation errors:".
fn is_validation_failure(message: &str) -> bool {
    let rest = message.trim_start_matches(|c: char| c.is_ascii_digit());
    rest.len() < message.len() && rest.starts_with(" validation error")
}

/// OpenAI's code, llama.cpp's type, and the wording of vLLM and others.
fn is_context_too_long(code: &str, kind: &str, message: &str) -> bool {
    let message = message.to_lowercase();
    code == "context_length_exceeded"
        || kind == "exceed_context_size_error"
        || [
            "maximum context length",
            "context window",
            "exceeds the available context size",
            "context length exceeded",
        ]
        .iter()
        .any(|phrase| message.contains(phrase))
}

/// At most 300 characters of a text from the wire, for error messages.
fn preview(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Turns the chunks of one answer into stream events. Tool calls are handed on whole when
/// the answer finishes, since any later chunk may still add to their arguments.
#[derive(Debug, Default)]
pub(crate) struct Decoder {
    calls: ToolCallAssembler,
    finish: Option<FinishReason>,
    usage: Option<Usage>,
    done: bool,
}

impl Decoder {
    pub(crate) fn boxed() -> Box<dyn ChunkDecoder> {
        Box::new(Decoder::default())
    }

    /// The answer is over: its calls, its usage, and why it stopped (`ToolCalls` whenever
    /// there are calls: older Ollama says `stop`).
    fn flush(&mut self, out: &mut VecDeque<StreamEvent>) {
        self.done = true;
        let calls = self.calls.finish();
        let mut finish = self.finish.take().unwrap_or(FinishReason::Stop);
        if !calls.is_empty() && finish == FinishReason::Stop {
            finish = FinishReason::ToolCalls;
        }
        out.extend(calls.into_iter().map(StreamEvent::ToolCall));
        if let Some(usage) = self.usage.take() {
            out.push_back(StreamEvent::Usage(usage));
        }
        out.push_back(StreamEvent::Finished(finish));
    }
}

impl ChunkDecoder for Decoder {
    fn decode(
        &mut self,
        event: &SseEvent,
        out: &mut VecDeque<StreamEvent>,
    ) -> Result<(), LlmError> {
        let (text, tool_calls, finish, usage) = match parse_chunk(&event.data)? {
            Chunk::Done => {
                self.flush(out);
                return Ok(());
            }
            Chunk::Delta { text, tool_calls, finish, usage } => (text, tool_calls, finish, usage),
        };
        if let Some(text) = text {
            out.push_back(StreamEvent::TextDelta(text));
        }
        tool_calls.into_iter().for_each(|delta| self.calls.push(delta));
        self.finish = finish.or(self.finish.take());
        self.usage = usage.or(self.usage.take());
        Ok(())
    }

    fn is_done(&self) -> bool {
        self.done
    }

    /// Without `[DONE]`, an answer that gave its finish reason is complete; one that did not
    /// was cut.
    fn finish(&mut self, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
        match (self.done, &self.finish) {
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

mod parts;
#[cfg(test)]
mod tests;
