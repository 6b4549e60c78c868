//! Renders a scripted answer as the SSE frames each API sends, in the shapes of the
//! vendors' recorded streams (chunk ids, roles, usage chunks, `[DONE]`, block events).

use bytes::Bytes;
use serde_json::{json, Value};

use crate::script::{Answer, Step};

/// Which API a request spoke.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Api {
    OpenAi,
    Anthropic,
}

/// One piece of a response body.
#[derive(Debug, Clone, PartialEq)]
pub enum Frame {
    Data(Bytes),
    Cut,
    Stall,
}

/// The frames of `answer`; `include_usage` is the request's `stream_options.include_usage`.
pub fn frames(api: Api, answer: &Answer, model: &str, include_usage: bool) -> Vec<Frame> {
    match api {
        Api::OpenAi => OpenAiRender::new(model).render(answer, include_usage),
        Api::Anthropic => AnthropicRender::new(model).render(answer),
    }
}

fn usage_of(answer: &Answer) -> (u64, u64) {
    answer.usage.unwrap_or((12, answer.steps.len() as u64))
}

/// Splits `text` into `pieces` parts of about equal length, on character boundaries.
fn split(text: &str, pieces: usize) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let size = chars.len().div_ceil(pieces.max(1)).max(1);
    let parts: Vec<String> = chars.chunks(size).map(|part| part.iter().collect()).collect();
    if parts.is_empty() {
        vec![String::new()]
    } else {
        parts
    }
}

fn sse(event: Option<&str>, data: &Value) -> Frame {
    let text = match event {
        Some(name) => format!("event: {name}\ndata: {data}\n\n"),
        None => format!("data: {data}\n\n"),
    };
    Frame::Data(Bytes::from(text))
}

struct OpenAiRender<'m> {
    model: &'m str,
    frames: Vec<Frame>,
}

impl<'m> OpenAiRender<'m> {
    fn new(model: &'m str) -> Self {
        OpenAiRender { model, frames: Vec::new() }
    }

    fn chunk(&mut self, delta: Value, finish: Option<&str>) {
        let data = json!({
            "id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1_751_900_000,
            "model": self.model, "system_fingerprint": "fp_scripted",
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        self.frames.push(sse(None, &data));
    }

    fn render(mut self, answer: &Answer, include_usage: bool) -> Vec<Frame> {
        self.chunk(json!({"role": "assistant", "content": ""}), None);
        let mut calls = 0;
        for step in &answer.steps {
            match step {
                Step::Text(text) => self.chunk(json!({"content": text}), None),
                Step::ToolCall { id, name, arguments, fragments } => {
                    let id = id.clone().unwrap_or_else(|| format!("call_scripted_{calls}"));
                    let head = json!({"index": calls, "id": id, "type": "function", "function": {"name": name, "arguments": ""}});
                    self.chunk(json!({"tool_calls": [head]}), None);
                    for part in split(arguments, *fragments) {
                        self.chunk(json!({"tool_calls": [{"index": calls, "function": {"arguments": part}}]}), None);
                    }
                    calls += 1;
                }
                Step::Cut => return self.end_with(Frame::Cut),
                Step::Stall => return self.end_with(Frame::Stall),
            }
        }
        self.chunk(json!({}), Some(if calls > 0 { "tool_calls" } else { "stop" }));
        if include_usage {
            let (input, output) = usage_of(answer);
            let usage = json!({"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output});
            let data = json!({"id": "chatcmpl-scripted", "object": "chat.completion.chunk", "created": 1_751_900_000,
                              "model": self.model, "choices": [], "usage": usage});
            self.frames.push(sse(None, &data));
        }
        self.frames.push(Frame::Data(Bytes::from_static(b"data: [DONE]\n\n")));
        self.frames
    }

    fn end_with(mut self, frame: Frame) -> Vec<Frame> {
        self.frames.push(frame);
        self.frames
    }
}

struct AnthropicRender<'m> {
    model: &'m str,
    frames: Vec<Frame>,
    /// The open content block: its index and whether it is text.
    open: Option<(usize, bool)>,
    next_index: usize,
}

impl<'m> AnthropicRender<'m> {
    fn new(model: &'m str) -> Self {
        AnthropicRender { model, frames: Vec::new(), open: None, next_index: 0 }
    }

    fn event(&mut self, name: &str, data: Value) {
        self.frames.push(sse(Some(name), &data));
    }

    fn close_block(&mut self) {
        if let Some((index, _)) = self.open.take() {
            self.event("content_block_stop", json!({"type": "content_block_stop", "index": index}));
        }
    }

    fn open_block(&mut self, block: Value, is_text: bool) -> usize {
        self.close_block();
        let index = self.next_index;
        self.next_index += 1;
        self.event(
            "content_block_start",
            json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        self.open = Some((index, is_text));
        index
    }

    fn render(mut self, answer: &Answer) -> Vec<Frame> {
        let (input, output) = usage_of(answer);
        let message = json!({"id": "msg_scripted", "type": "message", "role": "assistant", "model": self.model,
            "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": input, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 1}});
        self.event("message_start", json!({"type": "message_start", "message": message}));
        self.event("ping", json!({"type": "ping"}));
        let mut called = false;
        for (n, step) in answer.steps.iter().enumerate() {
            match step {
                Step::Text(text) => {
                    let index = match self.open {
                        Some((index, true)) => index,
                        _ => self.open_block(json!({"type": "text", "text": ""}), true),
                    };
                    self.event(
                        "content_block_delta",
                        json!({"type": "content_block_delta", "index": index,
                        "delta": {"type": "text_delta", "text": text}}),
                    );
                }
                Step::ToolCall { id, name, arguments, fragments } => {
                    called = true;
                    let id = id.clone().unwrap_or_else(|| format!("toolu_scripted_{n}"));
                    let index = self.open_block(
                        json!({"type": "tool_use", "id": id, "name": name, "input": {}}),
                        false,
                    );
                    for part in split(arguments, *fragments) {
                        self.event(
                            "content_block_delta",
                            json!({"type": "content_block_delta", "index": index,
                            "delta": {"type": "input_json_delta", "partial_json": part}}),
                        );
                    }
                }
                Step::Cut => return self.end_with(Frame::Cut),
                Step::Stall => return self.end_with(Frame::Stall),
            }
        }
        self.close_block();
        let stop = if called { "tool_use" } else { "end_turn" };
        self.event("message_delta", json!({"type": "message_delta",
            "delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": output}}));
        self.event("message_stop", json!({"type": "message_stop"}));
        self.frames
    }

    fn end_with(mut self, frame: Frame) -> Vec<Frame> {
        self.frames.push(frame);
        self.frames
    }
}

/// The body of a scripted error answer, in the API's error shape.
pub fn error_body(api: Api, status: u16) -> String {
    let (kind, message) = match status {
        429 => ("rate_limit_error", "Rate limit reached (scripted)"),
        401 => ("authentication_error", "invalid api key (scripted)"),
        529 => ("overloaded_error", "Overloaded (scripted)"),
        500..=599 => ("api_error", "Internal server error (scripted)"),
        _ => ("invalid_request_error", "Bad request (scripted)"),
    };
    match api {
        Api::OpenAi => {
            json!({"error": {"message": message, "type": kind, "param": null, "code": null}})
                .to_string()
        }
        Api::Anthropic => {
            json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
        }
    }
}

/// The API's real answer to a request over the context window (HTTP 400): OpenAI's
/// `context_length_exceeded`, Anthropic's "prompt is too long".
pub fn context_error_body(api: Api, tokens: u64, limit: u64) -> String {
    match api {
        Api::OpenAi => json!({"error": {
            "message": format!("This model's maximum context length is {limit} tokens. However, your messages resulted in {tokens} tokens. Please reduce the length of the messages."),
            "type": "invalid_request_error",
            "param": "messages",
            "code": "context_length_exceeded",
        }})
        .to_string(),
        Api::Anthropic => json!({"type": "error", "error": {
            "type": "invalid_request_error",
            "message": format!("prompt is too long: {tokens} tokens > {limit} maximum"),
        }})
        .to_string(),
    }
}

/// The tokens of a request as the scripted server counts them: about three bytes a token
/// over the system prompt, the messages and the tools (a little heavier than the engine's
/// own estimate, as real tokenizers often are), and an image at [`IMAGE_TOKENS`] whatever
/// its base64's length, as providers count an image by its pixels.
pub fn count_tokens(body: &Value) -> u64 {
    let mut images = Images::default();
    let mut part = |key: &str| {
        body.get(key).map_or(0, |value| {
            images.count(value);
            value.to_string().len()
        })
    };
    let bytes = part("system") + part("messages") + part("tools");
    (bytes.saturating_sub(images.bytes) as u64).div_ceil(3) + images.count * IMAGE_TOKENS
}

/// What the scripted server counts an image as, in tokens (the engine's estimate too).
pub const IMAGE_TOKENS: u64 = 1_600;

/// The images of a request: how many, and the bytes of their data.
#[derive(Default)]
struct Images {
    count: u64,
    bytes: usize,
}

impl Images {
    /// Counts `value`'s images: OpenAI's `data:` URLs and Anthropic's base64 sources.
    fn count(&mut self, value: &Value) {
        match value {
            Value::String(text) if text.starts_with("data:image/") => self.add(text),
            Value::Object(fields) if fields.get("type") == Some(&json!("base64")) => {
                self.add(fields.get("data").and_then(Value::as_str).unwrap_or_default())
            }
            Value::Object(fields) => fields.values().for_each(|inner| self.count(inner)),
            Value::Array(items) => items.iter().for_each(|inner| self.count(inner)),
            _ => {}
        }
    }

    fn add(&mut self, data: &str) {
        self.count += 1;
        self.bytes += data.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(frames: &[Frame]) -> String {
        frames
            .iter()
            .map(|frame| match frame {
                Frame::Data(bytes) => String::from_utf8_lossy(bytes).into_owned(),
                Frame::Cut => "<cut>".into(),
                Frame::Stall => "<stall>".into(),
            })
            .collect()
    }

    #[test]
    fn an_image_counts_as_its_fixed_figure_not_its_base64() {
        let text = json!({"messages": [{"role": "user", "content": "x".repeat(299)}]});
        let with = |image: Value| {
            let mut body = text.clone();
            body["messages"]
                .as_array_mut()
                .unwrap()
                .push(json!({"role": "user", "content": [image]}));
            count_tokens(&body) - count_tokens(&text)
        };
        let url = json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{}", "A".repeat(300_000))}});
        let block = json!({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "A".repeat(300_000)}});
        for image in [url, block] {
            let added = with(image);
            assert!((IMAGE_TOKENS..IMAGE_TOKENS + 40).contains(&added), "{added}");
        }
    }

    #[test]
    fn splits_cover_the_text() {
        assert_eq!(split("{\"a\":1}", 3), vec!["{\"a", "\":1", "}"]);
        assert_eq!(split("", 3), vec![""]);
        assert_eq!(split("é€x", 5).concat(), "é€x");
    }

    #[test]
    fn openai_stream_ends_with_usage_and_done() {
        let answer =
            Answer::new().text("Hi").tool_call("turn_plan", json!({"op": "start", "id": 1}));
        let text = text_of(&frames(Api::OpenAi, &answer, "m", true));
        assert!(text.contains(r#""finish_reason":"tool_calls""#), "{text}");
        assert!(text.contains(r#""usage":{"prompt_tokens":12"#), "{text}");
        assert!(text.ends_with("data: [DONE]\n\n"));
        let without_usage = text_of(&frames(Api::OpenAi, &Answer::new().text("Hi"), "m", false));
        assert!(!without_usage.contains("usage"));
    }

    #[test]
    fn faults_end_the_frames() {
        let answer = Answer::new().text("a").cut().text("never");
        for api in [Api::OpenAi, Api::Anthropic] {
            let rendered = frames(api, &answer, "m", true);
            assert_eq!(rendered.last(), Some(&Frame::Cut));
            assert!(!text_of(&rendered).contains("never"));
        }
    }

    #[test]
    fn anthropic_blocks_open_and_close_in_order() {
        let answer = Answer::new().text("a").text("b").tool_call("t", json!({}));
        let text = text_of(&frames(Api::Anthropic, &answer, "m", true));
        let order: Vec<&str> =
            text.lines().filter_map(|line| line.strip_prefix("event: ")).collect();
        assert_eq!(
            order,
            [
                "message_start",
                "ping",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop",
            ]
        );
    }
}
