//! The OpenAI chat-completions wire format, as OpenAI, Ollama, llama.cpp's server, vLLM and
//! LM Studio speak it. Pure: `to_request` builds the body, `parse_chunk` reads one SSE data
//! payload, `parse_error` classifies an error answer, [`Decoder`] turns a stream of chunks
//! into [`StreamEvent`]s. Tested on recorded answers of each server (`fixtures/`).

use std::collections::VecDeque;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{json, Value};

use crate::llm::assemble::{ToolCallAssembler, ToolCallDelta};
use crate::llm::error::error_for_status;
use crate::llm::http::ChunkDecoder;
use crate::llm::sse::SseEvent;
use crate::llm::types::provider_schema;
use crate::llm::{FinishReason, LlmError, ModelMessage, ModelRequest, StreamEvent, Usage};

/// The request body for a streaming call; usage is asked for in the stream's last chunk.
pub fn to_request(model: &str, max_tokens: Option<u32>, request: &ModelRequest) -> Value {
    let mut messages = Vec::with_capacity(request.messages.len() + 1);
    if !request.system.is_empty() {
        messages.push(json!({"role": "system", "content": request.system}));
    }
    messages.extend(request.messages.iter().map(message));
    let mut body = json!({
        "model": model,
        "messages": messages,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !request.tools.is_empty() {
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|tool| {
                json!({"type": "function", "function": {
                    "name": tool.name,
                    "description": tool.description,
                    "parameters": provider_schema(&tool.input_schema),
                }})
            })
            .collect();
        body["tools"] = Value::Array(tools);
    }
    if let Some(max_tokens) = max_tokens {
        body["max_tokens"] = json!(max_tokens);
    }
    body
}

fn message(message: &ModelMessage) -> Value {
    match message {
        ModelMessage::User { content } => json!({"role": "user", "content": content}),
        ModelMessage::Assistant { content, tool_calls } if tool_calls.is_empty() => {
            json!({"role": "assistant", "content": content})
        }
        ModelMessage::Assistant { content, tool_calls } => {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|call| {
                    json!({"id": call.id, "type": "function",
                           "function": {"name": call.name, "arguments": call.arguments}})
                })
                .collect();
            let content = if content.is_empty() { Value::Null } else { json!(content) };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        // The API has no error flag on tool results: the model reads it in the text.
        ModelMessage::Tool {
            call_id,
            content,
            is_error,
            ..
        } => {
            let content = if *is_error { format!("Error: {content}") } else { content.clone() };
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
    }
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
        Some(delta) => (delta.content.filter(|text| !text.is_empty()), delta.tool_calls.unwrap_or_default()),
        None => (None, Vec::new()),
    };
    Ok(Chunk::Delta {
        text,
        tool_calls: calls.into_iter().enumerate().map(tool_call_delta).collect(),
        finish: finish.as_deref().map(finish_reason),
        usage: chunk.usage.map(|usage| Usage {
            input_tokens: usage.prompt_tokens,
            output_tokens: usage.completion_tokens,
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
    let value = serde_json::from_str::<Value>(body).unwrap_or_else(|_| json!({"error": {"message": body}}));
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
    match status {
        Some(429) if code == "insufficient_quota" => LlmError::Rejected { status: 429, message },
        Some(status) => error_for_status(status, retry_after, message),
        // In the stream: the server gave up mid-answer.
        None => LlmError::Unavailable { status: None, message },
    }
}

/// OpenAI's code, llama.cpp's type, and the wording of vLLM and others.
fn is_context_too_long(code: &str, kind: &str, message: &str) -> bool {
    let message = message.to_lowercase();
    code == "context_length_exceeded"
        || kind == "exceed_context_size_error"
        || ["maximum context length", "context window", "exceeds the available context size", "context length exceeded"]
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
    fn decode(&mut self, event: &SseEvent, out: &mut VecDeque<StreamEvent>) -> Result<(), LlmError> {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chat::ToolCall;
    use crate::llm::http::decode_recorded;
    use crate::tool::ToolSpec;
    use StreamEvent::{Finished, TextDelta, ToolCall as Call, Usage as Used};

    fn decode(stream: &str) -> (Vec<StreamEvent>, Option<LlmError>) {
        decode_recorded(stream, Decoder::boxed())
    }

    fn call(id: &str, name: &str, arguments: &str) -> StreamEvent {
        Call(ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() })
    }

    fn usage(input_tokens: u64, output_tokens: u64) -> StreamEvent {
        Used(Usage { input_tokens, output_tokens })
    }

    fn text(delta: &str) -> StreamEvent {
        TextDelta(delta.into())
    }

    #[test]
    fn recorded_answers_of_each_server() {
        let cases: Vec<(&str, &str, Vec<StreamEvent>)> = vec![
            ("openai text", include_str!("fixtures/openai_text.sse"), vec![
                text("Hello"), text("! How"), text(" can I help?"), usage(19, 9), Finished(FinishReason::Stop),
            ]),
            ("openai parallel calls", include_str!("fixtures/openai_tool_calls.sse"), vec![
                call("call_Vq3JtE2c4mYfN8rD1aS5hK0b", "mcp_filesystem_read_text_file", r#"{"path": "src/main.rs"}"#),
                call("call_8bWlKp0sQx7TzR4eUo2nMa6c", "turn_plan", r#"{"op": "start", "id": 2}"#),
                usage(412, 58),
                Finished(FinishReason::ToolCalls),
            ]),
            ("ollama whole calls under one index", include_str!("fixtures/ollama_tool_call.sse"), vec![
                call("call_u4v0xk2p", "mcp_filesystem_list_directory", r#"{"path":"."}"#),
                call("call_9h3d1mzq", "mcp_filesystem_read_text_file", r#"{"path":"README.md"}"#),
                usage(311, 41),
                Finished(FinishReason::ToolCalls),
            ]),
            ("older ollama: no index, finish_reason stop", include_str!("fixtures/ollama_old_whole_call.sse"), vec![
                call("call_ycnqjlkq", "turn_plan", r#"{"op":"init","tasks":[{"title":"read the code"}]}"#),
                Finished(FinishReason::ToolCalls),
            ]),
            ("llama.cpp: text, then a call without an id", include_str!("fixtures/llamacpp_tool_call.sse"), vec![
                text("Let me look."),
                call("call_1", "mcp_filesystem_search_files", r#"{"pattern":"*.toml"}"#),
                usage(198, 23),
                Finished(FinishReason::ToolCalls),
            ]),
        ];
        for (name, stream, expected) in cases {
            let (events, error) = decode(stream);
            assert_eq!(error, None, "{name}");
            assert_eq!(events, expected, "{name}");
        }
    }

    #[test]
    fn an_error_in_the_stream_is_typed() {
        let (events, error) = decode(include_str!("fixtures/vllm_error_mid_stream.sse"));
        assert_eq!(events, vec![text("Sure")]);
        assert!(matches!(error, Some(LlmError::Unavailable { status: None, ref message }) if message.contains("overloaded")));
    }

    #[test]
    fn a_stream_without_its_end_is_cut_and_one_without_done_is_not() {
        let stream = include_str!("fixtures/openai_text.sse");
        let before_finish = &stream[..stream.find("\"finish_reason\":\"stop\"").unwrap()];
        let cut_at = before_finish.rfind("data:").unwrap();
        let (_, error) = decode(&stream[..cut_at]);
        assert!(matches!(error, Some(LlmError::StreamCut { .. })), "{error:?}");
        let without_done = stream.replace("data: [DONE]", "");
        let (events, error) = decode(&without_done);
        assert_eq!((events.last(), error), (Some(&Finished(FinishReason::Stop)), None));
    }

    #[test]
    fn garbage_is_a_bad_response() {
        assert!(matches!(parse_chunk("{not json"), Err(LlmError::BadResponse { .. })));
        assert_eq!(parse_chunk(" [DONE] "), Ok(Chunk::Done));
    }

    #[test]
    fn recorded_error_bodies() {
        let cases = [
            (429, r#"{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29950. Please try again in 1.2s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}"#, "ERR_PROVIDER_RATE_LIMITED"),
            (429, r#"{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#, "ERR_PROVIDER_REJECTED"),
            (400, r#"{"error":{"message":"This model's maximum context length is 128000 tokens. However, your messages resulted in 130412 tokens. Please reduce the length of the messages.","type":"invalid_request_error","param":"messages","code":"context_length_exceeded"}}"#, "ERR_CONTEXT_TOO_LONG"),
            (400, r#"{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_prompt_tokens":9000,"n_ctx":8192}}"#, "ERR_CONTEXT_TOO_LONG"),
            (401, r#"{"error":{"message":"Incorrect API key provided: sk-abc***xyz.","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}"#, "ERR_PROVIDER_UNAUTHORIZED"),
            (404, r#"{"error":"model \"qwen9:7b\" not found, try pulling it first"}"#, "ERR_PROVIDER_REJECTED"),
            (502, "<html><body>Bad Gateway</body></html>", "ERR_PROVIDER_UNAVAILABLE"),
        ];
        for (status, body, code) in cases {
            assert_eq!(parse_error(status, None, body).code(), code, "{body}");
        }
        let ollama = parse_error(404, None, cases[5].1);
        assert_eq!(ollama.to_string(), "the provider rejected the request (HTTP 404): model \"qwen9:7b\" not found, try pulling it first");
    }

    fn request() -> ModelRequest {
        ModelRequest {
            system: "You are Preflight.".into(),
            messages: vec![
                ModelMessage::user("Read main.rs"),
                ModelMessage::Assistant {
                    content: String::new(),
                    tool_calls: vec![ToolCall { id: "call_1".into(), name: "read".into(), arguments: r#"{"path":"main.rs"}"#.into() }],
                },
                ModelMessage::Tool { call_id: "call_1".into(), name: "read".into(), content: "no such file".into(), is_error: true },
            ],
            tools: vec![ToolSpec {
                name: "read".into(),
                description: "Reads a file".into(),
                input_schema: json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"path": {"type": "string"}}}),
            }],
        }
    }

    #[test]
    fn request_body() {
        let body = to_request("qwen2.5:7b", Some(512), &request());
        let expected = json!({
            "model": "qwen2.5:7b",
            "messages": [
                {"role": "system", "content": "You are Preflight."},
                {"role": "user", "content": "Read main.rs"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"main.rs\"}"}}
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "Error: no such file"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
            "tools": [{"type": "function", "function": {
                "name": "read", "description": "Reads a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}},
            }}],
            "max_tokens": 512,
        });
        assert_eq!(body, expected);
        let bare = to_request("m", None, &ModelRequest { messages: vec![ModelMessage::user("hi")], ..ModelRequest::default() });
        assert_eq!(bare, json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true, "stream_options": {"include_usage": true}}));
    }
}
