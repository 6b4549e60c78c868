//! A server's `CallToolResult` turned into the text a model reads (`ToolOutput`). Pure.
//!
//! - Text blocks are joined with newlines; other blocks are described in one line
//!   (`[image: image/png, 1234 bytes]`), since a tool result reaches the model as text.
//!   An image in a format models take (PNG, JPEG, GIF, WebP, told by its bytes, not by the
//!   server's word) of at most 20 MiB also travels as itself (`ToolOutput::images`), for a
//!   vision model to be shown (DESIGN §15).
//! - `structuredContent` is dropped when it only repeats the content (the filesystem server
//!   sends every text twice: `{"content": <the text>}`); otherwise it is appended as JSON.
//! - A result over the size limit is refused with an error telling the model to ask for
//!   less, never cut silently (a cut file looks complete to a model).

use base64::Engine as _;
use preflight_protocol::chat::{base64_decoded_len, image_media_type, ImagePart, MAX_IMAGE_BYTES};
use preflight_protocol::tool::ToolOutput;
use rmcp::model::{CallToolResult, ContentBlock, ImageContent, ResourceContents};
use serde_json::Value;

/// The output of `tool` (the model's name for it), refused above `limit` bytes.
pub fn to_tool_output(result: &CallToolResult, limit: usize, tool: &str) -> ToolOutput {
    let mut text = String::new();
    let mut images = Vec::new();
    for (i, block) in result.content.iter().enumerate() {
        if i > 0 {
            text.push('\n');
        }
        describe_block(block, &mut text);
        if let ContentBlock::Image(image) = block {
            images.extend(image_part(image));
        }
    }
    if let Some(structured) = &result.structured_content {
        if !repeats_content(structured, &result.content) {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&structured.to_string());
        }
    }
    if text.len() > limit {
        return ToolOutput::error(format!(
            "`{tool}` returned {} bytes, over the limit of {limit} bytes for one tool result; \
             ask for less (a narrower path or pattern, part of a file, fewer files)",
            text.len()
        ));
    }
    if result.is_error == Some(true) {
        if text.is_empty() {
            text = format!("`{tool}` failed without saying why");
        }
        return ToolOutput::error(text).with_images(images);
    }
    ToolOutput::ok(text).with_images(images)
}

/// The image a model can be shown, when `image` is one: its media type read from its first
/// bytes (a server may misname it, and a provider refuses a wrong one), at most 20 MiB.
fn image_part(image: &ImageContent) -> Option<ImagePart> {
    if base64_decoded_len(&image.data) as u64 > MAX_IMAGE_BYTES {
        return None;
    }
    // 16 characters of base64 are the first 12 bytes: enough for every format's mark.
    let head = image.data.get(..16.min(image.data.len()))?;
    let bytes = base64::engine::general_purpose::STANDARD.decode(head).ok()?;
    let media_type = image_media_type(&bytes)?;
    Some(ImagePart::new(media_type, image.data.as_str()))
}

fn describe_block(block: &ContentBlock, out: &mut String) {
    use std::fmt::Write;
    let _ = match block {
        ContentBlock::Text(text) => {
            out.push_str(&text.text);
            Ok(())
        }
        ContentBlock::Image(image) => {
            write!(out, "[image: {}, {} bytes]", image.mime_type, decoded_len(&image.data))
        }
        ContentBlock::Audio(audio) => {
            write!(out, "[audio: {}, {} bytes]", audio.mime_type, decoded_len(&audio.data))
        }
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                write!(out, "[resource {uri}]\n{text}")
            }
            ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
                let mime = mime_type.as_deref().unwrap_or("application/octet-stream");
                write!(out, "[resource {uri}: {mime}, {} bytes]", decoded_len(blob))
            }
            _ => write!(out, "[a resource of a kind this client does not show]"),
        },
        ContentBlock::ResourceLink(link) => {
            write!(out, "[resource link: {} ({})]", link.uri, link.name)
        }
        _ => write!(out, "[content of a kind this client does not show]"),
    };
}

/// The size of base64 `data` once decoded.
fn decoded_len(data: &str) -> usize {
    base64_decoded_len(data)
}

/// Whether every value in `structured` already appears in the content blocks: each string
/// inside one of the blocks' strings (their text, data, type, MIME type, URI…), each number
/// or boolean inside their text.
fn repeats_content(structured: &Value, content: &[ContentBlock]) -> bool {
    let mut haystack = Vec::new();
    content.iter().for_each(|block| block_strings(block, &mut haystack));
    leaves_within(structured, &haystack)
}

/// The strings of a block, as its JSON form holds them (without copying any).
fn block_strings<'a>(block: &'a ContentBlock, out: &mut Vec<&'a str>) {
    match block {
        ContentBlock::Text(text) => out.extend(["text", text.text.as_str()]),
        ContentBlock::Image(image) => {
            out.extend(["image", image.data.as_str(), image.mime_type.as_str()])
        }
        ContentBlock::Audio(audio) => {
            out.extend(["audio", audio.data.as_str(), audio.mime_type.as_str()])
        }
        ContentBlock::Resource(embedded) => {
            out.push("resource");
            match &embedded.resource {
                ResourceContents::TextResourceContents { uri, mime_type, text, .. } => out
                    .extend([uri.as_str(), text.as_str()].into_iter().chain(mime_type.as_deref())),
                ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => out
                    .extend([uri.as_str(), blob.as_str()].into_iter().chain(mime_type.as_deref())),
                _ => {}
            }
        }
        ContentBlock::ResourceLink(link) => {
            out.extend(["resource_link", link.uri.as_str(), link.name.as_str()]);
            out.extend(link.mime_type.as_deref().into_iter().chain(link.description.as_deref()));
        }
        // Unknown blocks add nothing: structured data is then kept rather than lost.
        _ => {}
    }
}

fn leaves_within(value: &Value, haystack: &[&str]) -> bool {
    let found = |needle: &str| haystack.iter().any(|h| h.contains(needle));
    match value {
        Value::String(s) => found(s),
        Value::Number(n) => found(&n.to_string()),
        Value::Bool(b) => found(if *b { "true" } else { "false" }),
        Value::Null => true,
        Value::Array(items) => items.iter().all(|v| leaves_within(v, haystack)),
        Value::Object(map) => map.values().all(|v| leaves_within(v, haystack)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn output(wire: Value, limit: usize) -> ToolOutput {
        let result: CallToolResult = serde_json::from_value(wire).expect("a CallToolResult");
        to_tool_output(&result, limit, "mcp_fs_tool")
    }

    #[test]
    fn converts_results_as_the_model_should_read_them() {
        let png = "iVBORw0KGgo="; // 8 bytes once decoded
        let table = [
            // The filesystem server's text tools: the text once, not twice.
            (json!({"content":[{"type":"text","text":"a\nb"}],"structuredContent":{"content":"a\nb"}}),
             ToolOutput::ok("a\nb")),
            // read_media_file: the block is described; its structured copy dropped.
            (json!({"content":[{"type":"image","data":png,"mimeType":"image/png"}],
                    "structuredContent":{"content":[{"type":"image","data":png,"mimeType":"image/png"}]}}),
             ToolOutput::ok("[image: image/png, 8 bytes]")),
            // Several blocks are joined; audio, blobs and links are described.
            (json!({"content":[{"type":"text","text":"one"},{"type":"text","text":"two"},
                               {"type":"audio","data":"AAAA","mimeType":"audio/wav"},
                               {"type":"resource","resource":{"uri":"file:///w/x.bin","blob":"AAAAAA=="}},
                               {"type":"resource","resource":{"uri":"file:///w/a.txt","text":"hi"}},
                               {"type":"resource_link","uri":"file:///w/b","name":"b"}]}),
             ToolOutput::ok("one\ntwo\n[audio: audio/wav, 3 bytes]\n[resource file:///w/x.bin: application/octet-stream, 4 bytes]\n[resource file:///w/a.txt]\nhi\n[resource link: file:///w/b (b)]")),
            // Structured data that adds something is kept, as compact JSON.
            (json!({"content":[{"type":"text","text":"sunny"}],"structuredContent":{"sky":"sunny","temp":21}}),
             ToolOutput::ok("sunny\n{\"sky\":\"sunny\",\"temp\":21}")),
            (json!({"content":[],"structuredContent":{"n":1}}), ToolOutput::ok("{\"n\":1}")),
            // Tool errors stay errors for the model.
            (json!({"content":[{"type":"text","text":"Access denied - path outside allowed directories"}],"isError":true}),
             ToolOutput::error("Access denied - path outside allowed directories")),
            (json!({"content":[],"isError":true}), ToolOutput::error("`mcp_fs_tool` failed without saying why")),
            (json!({"content":[]}), ToolOutput::ok("")),
        ];
        for (wire, want) in table {
            assert_eq!(output(wire.clone(), 1 << 20), want, "{wire}");
        }
    }

    /// An image in a format models take travels as itself, its type told by its bytes;
    /// anything else is only described.
    #[test]
    fn images_models_take_travel_as_images() {
        let pixel = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
        let wire = json!({"content":[
            {"type":"image","data":pixel,"mimeType":"image/jpeg"},
            {"type":"image","data":"aGVsbG8gd29ybGQsIG5vdCBhbiBpbWFnZQ==","mimeType":"image/png"},
            {"type":"text","text":"two shots"}]});
        let out = output(wire, 1 << 20);
        assert_eq!(
            out.content,
            "[image: image/jpeg, 70 bytes]\n[image: image/png, 25 bytes]\ntwo shots"
        );
        assert_eq!(out.images, [ImagePart::new("image/png", pixel)]);
        let error = json!({"content":[{"type":"image","data":pixel,"mimeType":"image/png"}],"isError":true});
        assert_eq!(output(error, 1 << 20).images.len(), 1, "an error's image is shown too");
    }

    #[test]
    fn a_result_over_the_limit_is_refused_not_cut() {
        let text = "x".repeat(101);
        let wire =
            json!({"content":[{"type":"text","text":text}],"structuredContent":{"content":text}});
        let out = output(wire.clone(), 100);
        assert!(out.is_error);
        assert_eq!(
            out.content,
            "`mcp_fs_tool` returned 101 bytes, over the limit of 100 bytes for one tool result; \
             ask for less (a narrower path or pattern, part of a file, fewer files)"
        );
        // The duplicate is not counted: exactly the limit passes.
        assert_eq!(output(wire, 101), ToolOutput::ok(text));
    }
}
