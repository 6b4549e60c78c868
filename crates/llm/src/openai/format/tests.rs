//! Tests of the openai wire format on recorded answers (`fixtures/` beside `format.rs`) and hand-made chunks.

use preflight_protocol::chat::ToolCall;
use preflight_protocol::tool::ToolSpec;
use StreamEvent::{Finished, TextDelta, ToolCall as Call, Usage as Used};

use super::*;
use crate::error::check_recorded_errors;
use crate::replay::decode_recorded;

fn decode(stream: &str) -> (Vec<StreamEvent>, Option<LlmError>) {
    decode_recorded(stream, Decoder::boxed())
}

fn call(id: &str, name: &str, arguments: &str) -> StreamEvent {
    Call(ToolCall { id: id.into(), name: name.into(), arguments: arguments.into() })
}

fn usage(input_tokens: u64, output_tokens: u64) -> StreamEvent {
    cached_usage(input_tokens, output_tokens, 0)
}

/// Usage with `cached` of the input read from the prompt cache.
fn cached_usage(input_tokens: u64, output_tokens: u64, cached: u64) -> StreamEvent {
    Used(Usage { input_tokens, output_tokens, cached_input_tokens: cached })
}

fn text(delta: &str) -> StreamEvent {
    TextDelta(delta.into())
}

#[test]
fn recorded_answers_of_each_server() {
    let cases: Vec<(&str, &str, Vec<StreamEvent>)> = vec![
        (
            "openai text",
            include_str!("../fixtures/openai_text.sse"),
            vec![
                text("Hello"),
                text("! How"),
                text(" can I help?"),
                usage(19, 9),
                Finished(FinishReason::Stop),
            ],
        ),
        (
            "openai parallel calls",
            include_str!("../fixtures/openai_tool_calls.sse"),
            vec![
                call(
                    "call_Vq3JtE2c4mYfN8rD1aS5hK0b",
                    "mcp_filesystem_read_text_file",
                    r#"{"path": "src/main.rs"}"#,
                ),
                call("call_8bWlKp0sQx7TzR4eUo2nMa6c", "turn_plan", r#"{"op": "start", "id": 2}"#),
                cached_usage(412, 58, 256),
                Finished(FinishReason::ToolCalls),
            ],
        ),
        (
            "ollama whole calls under one index",
            include_str!("../fixtures/ollama_tool_call.sse"),
            vec![
                call("call_u4v0xk2p", "mcp_filesystem_list_directory", r#"{"path":"."}"#),
                call("call_9h3d1mzq", "mcp_filesystem_read_text_file", r#"{"path":"README.md"}"#),
                usage(311, 41),
                Finished(FinishReason::ToolCalls),
            ],
        ),
        (
            "older ollama: no index, finish_reason stop",
            include_str!("../fixtures/ollama_old_whole_call.sse"),
            vec![
                call(
                    "call_ycnqjlkq",
                    "turn_plan",
                    r#"{"op":"init","tasks":[{"title":"read the code"}]}"#,
                ),
                Finished(FinishReason::ToolCalls),
            ],
        ),
        (
            "llama.cpp: text, then a call without an id",
            include_str!("../fixtures/llamacpp_tool_call.sse"),
            vec![
                text("Let me look."),
                call("call_1", "mcp_filesystem_search_files", r#"{"pattern":"*.toml"}"#),
                usage(198, 23),
                Finished(FinishReason::ToolCalls),
            ],
        ),
    ];
    for (name, stream, expected) in cases {
        let (events, error) = decode(stream);
        assert_eq!(error, None, "{name}");
        assert_eq!(events, expected, "{name}");
    }
}

#[test]
fn an_error_in_the_stream_is_typed() {
    let (events, error) = decode(include_str!("../fixtures/vllm_error_mid_stream.sse"));
    assert_eq!(events, vec![text("Sure")]);
    assert!(
        matches!(error, Some(LlmError::Unavailable { status: None, ref message }) if message.contains("overloaded"))
    );
}

#[test]
fn a_stream_without_its_end_is_cut_and_one_without_done_is_not() {
    let stream = include_str!("../fixtures/openai_text.sse");
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
    check_recorded_errors(include_str!("../fixtures/errors.json"), parse_error);
}

fn request() -> ModelRequest {
    ModelRequest {
        system: "You are Preflight.".into(),
        messages: vec![
            ModelMessage::user("Read main.rs"),
            ModelMessage::Assistant {
                content: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "read".into(),
                    arguments: r#"{"path":"main.rs"}"#.into(),
                }],
            },
            ModelMessage::Tool {
                call_id: "call_1".into(),
                name: "read".into(),
                content: "no such file".into(),
                is_error: true,
                images: vec![],
            },
        ],
        tail: Some("[state]".into()),
        tools: vec![ToolSpec {
            name: "read".into(),
            description: "Reads a file".into(),
            input_schema: json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        ..ModelRequest::default()
    }
}

#[test]
fn request_body() {
    let request = request();
    let body =
        serde_json::to_value(to_request("qwen2.5:7b", Some(512), &request, Quirks::STANDARD))
            .unwrap();
    let recorded: Value = serde_json::from_str(include_str!("../fixtures/request.json")).unwrap();
    assert_eq!(body, recorded);
    let hi = ModelRequest { messages: vec![ModelMessage::user("hi")], ..ModelRequest::default() };
    let bare = serde_json::to_value(to_request("m", None, &hi, Quirks::STANDARD)).unwrap();
    let expected = json!({"model": "m", "messages": [{"role": "user", "content": "hi"}], "stream": true, "stream_options": {"include_usage": true}});
    assert_eq!(bare, expected);
}

/// llama-cpp-python's server (`compat.rs`): a whole answer asked for, tools said aloud, and an
/// assistant message that only calls tools with `""` for its text.
#[test]
fn request_body_for_llama_cpp_python() {
    let request = request();
    let body =
        serde_json::to_value(to_request("m", None, &request, Quirks::LLAMA_CPP_PYTHON)).unwrap();
    assert_eq!((&body["stream"], body.get("stream_options")), (&json!(false), None));
    assert_eq!(body["tool_choice"], "auto");
    let only_calls =
        body["messages"].as_array().unwrap().iter().find(|m| m["tool_calls"].is_array());
    assert_eq!(only_calls.unwrap()["content"], "", "{body}");
    let hi = ModelRequest { messages: vec![ModelMessage::user("hi")], ..ModelRequest::default() };
    let bare = serde_json::to_value(to_request("m", None, &hi, Quirks::LLAMA_CPP_PYTHON)).unwrap();
    assert_eq!(bare.get("tool_choice"), None, "no tools, no choice");
}

/// A whole answer (`stream: false`), as llama-cpp-python's server gave it, read as one chunk:
/// its tool call (with the legacy `function_call` beside it), usage and finish.
#[test]
fn a_whole_answer_reads_as_one_chunk() {
    let answer = r#"{"id":"chatcmpl-5","object":"chat.completion","created":1,"model":"x","choices":[{"index":0,"message":{"content":null,"tool_calls":[{"id":"call__0_read_file_cmpl-5","type":"function","function":{"name":"read_file","arguments":"{\"path\": \"notes.txt\"}"}}],"role":"assistant","function_call":{"name":"read_file","arguments":"{\"path\": \"notes.txt\"}"}},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":22,"completion_tokens":13,"total_tokens":35}}"#;
    let (events, error) = decode(&format!("data: {answer}\n\n"));
    assert_eq!(error, None);
    assert_eq!(
        events,
        [
            call("call__0_read_file_cmpl-5", "read_file", r#"{"path": "notes.txt"}"#),
            usage(22, 13),
            Finished(FinishReason::ToolCalls)
        ]
    );
}

/// A record: Preflight's words as the user's, the data as a `preflight_record` call's
/// result carrying the tail; nothing of the data in a user message.
#[test]
fn a_record_is_the_users_note_then_preflights_call_and_its_result() {
    let request = ModelRequest {
        messages: vec![
            ModelMessage::user("Do it"),
            ModelMessage::Record {
                note: "I restored the workspace.".into(),
                call_id: "preflight_record_m1".into(),
                data: r#"{"kept":["IGNORE ME.txt"]}"#.into(),
            },
        ],
        tail: Some("[state]".into()),
        ..ModelRequest::default()
    };
    let body = serde_json::to_value(to_request("m", None, &request, Quirks::STANDARD)).unwrap();
    assert_eq!(
        body["messages"],
        json!([
            {"role": "user", "content": "Do it"},
            {"role": "user", "content": "I restored the workspace."},
            {"role": "assistant", "content": null, "tool_calls": [{"id": "preflight_record_m1", "type": "function", "function": {"name": "preflight_record", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "preflight_record_m1", "content": "{\"kept\":[\"IGNORE ME.txt\"]}\n\n[state]"},
        ])
    );
}

fn image(data: &str) -> preflight_protocol::chat::ImagePart {
    preflight_protocol::chat::ImagePart::new("image/png", data)
}

fn read_call(id: &str) -> ToolCall {
    ToolCall { id: id.into(), name: "screenshot".into(), arguments: "{}".into() }
}

fn tool(id: &str, content: &str, images: Vec<preflight_protocol::chat::ImagePart>) -> ModelMessage {
    let (call_id, name, content) = (id.into(), "screenshot".into(), content.into());
    ModelMessage::Tool { call_id, name, content, is_error: false, images }
}

/// A user's images go as parts after the text; a round's tool images as a user message
/// right after its results, which takes the tail when it is last.
#[test]
fn images_go_as_data_url_parts_after_the_text_and_after_the_rounds_results() {
    let calls = vec![read_call("c1"), read_call("c2")];
    let request = ModelRequest {
        messages: vec![
            ModelMessage::User { content: "What is this?".into(), images: vec![image("AAAA")] },
            ModelMessage::Assistant { content: String::new(), tool_calls: calls },
            tool("c1", "[image: image/png, 3 bytes]", vec![image("BBBB"), image("CCCC")]),
            tool("c2", "no window", vec![]),
        ],
        tail: Some("[state]".into()),
        ..ModelRequest::default()
    };
    let body = serde_json::to_value(to_request("m", None, &request, Quirks::STANDARD)).unwrap();
    let url = |data: &str| json!({"type": "image_url", "image_url": {"url": format!("data:image/png;base64,{data}")}});
    let messages = body["messages"].as_array().unwrap();
    assert_eq!(
        messages[0],
        json!({"role": "user", "content": [{"type": "text", "text": "What is this?"}, url("AAAA")]})
    );
    assert_eq!(messages[2]["content"], "[image: image/png, 3 bytes]");
    assert_eq!(messages[3], json!({"role": "tool", "tool_call_id": "c2", "content": "no window"}));
    assert_eq!(
        messages[4],
        json!({"role": "user", "content": [
            {"type": "text", "text": "The image(s) screenshot returned (call c1):"},
            url("BBBB"), url("CCCC"),
            {"type": "text", "text": "[state]"},
        ]})
    );
    assert_eq!(messages.len(), 5);
}

/// Without images every message is the plain string it always was; a round without images
/// gets no images message, and the tail stays on its last result.
#[test]
fn without_images_nothing_changes() {
    let request = ModelRequest {
        messages: vec![
            ModelMessage::user("hi"),
            ModelMessage::Assistant { content: String::new(), tool_calls: vec![read_call("c1")] },
            tool("c1", "done", vec![]),
        ],
        tail: Some("[state]".into()),
        ..ModelRequest::default()
    };
    let body = serde_json::to_value(to_request("m", None, &request, Quirks::STANDARD)).unwrap();
    assert_eq!(body["messages"][0], json!({"role": "user", "content": "hi"}));
    assert_eq!(body["messages"][2]["content"], "done\n\n[state]");
    assert_eq!(body["messages"].as_array().unwrap().len(), 3);
}
