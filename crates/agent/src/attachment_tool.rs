//! The built-in `read_attachment` tool: reads the copy of a file the user attached to the
//! chat (`lifecycle/attachments.rs`), by its name in the chat, in pages of
//! [`PAGE_BYTES`]. Read-only, and it reaches nothing but the chat's own copies, so the
//! planner is offered it too (DESIGN §4).

use std::path::{Path, PathBuf};

use preflight_protocol::chat::Attachment;
use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde_json::{json, Value};

use super::{Tool, ToolContext};

pub const READ_ATTACHMENT: &str = "read_attachment";
/// The most of a file one call returns.
pub const PAGE_BYTES: usize = 60_000;

/// The chat's attachments as they were when the turn began (no message is sent during a turn).
#[derive(Clone)]
pub struct ReadAttachmentTool {
    dir: PathBuf,
    attachments: Vec<Attachment>,
}

impl ReadAttachmentTool {
    pub fn new(dir: PathBuf, attachments: Vec<Attachment>) -> ReadAttachmentTool {
        ReadAttachmentTool { dir, attachments }
    }

    fn read(&self, name: &str, offset: usize) -> ToolOutput {
        let Some(attachment) = self.attachments.iter().find(|a| a.name == name) else {
            let names: Vec<&str> = self.attachments.iter().map(|a| a.name.as_str()).collect();
            return ToolOutput::error(format!(
                "no attachment {name:?} in this chat; its attachments: {}",
                names.join(", ")
            ));
        };
        let cap = offset.saturating_add(PAGE_BYTES);
        let read = match preflight_files::read_regular_capped(&self.dir, Path::new(name), cap) {
            Ok(read) => read,
            Err(error) => return ToolOutput::error(format!("cannot read {name}: {error}")),
        };
        page(attachment, &read.bytes, offset)
    }
}

/// The text of `bytes[offset..]` (whole characters), with where it stands in the file.
fn page(attachment: &Attachment, bytes: &[u8], offset: usize) -> ToolOutput {
    let size = attachment.size as usize;
    if offset >= bytes.len() && offset > 0 {
        return ToolOutput::error(format!("offset {offset} is past the end ({size} bytes)"));
    }
    let tail = &bytes[offset.min(bytes.len())..];
    let text = match std::str::from_utf8(tail) {
        Ok(text) => text,
        // A page may end inside a character: keep the whole ones.
        Err(error) if error.error_len().is_none() => {
            std::str::from_utf8(&tail[..error.valid_up_to()]).unwrap_or_default()
        }
        Err(_) if attachment.media_type.is_some() => {
            return ToolOutput::error(format!(
                "{} is an image, not text: a model that sees images is shown it with the \
                 message it came with",
                attachment.name
            ))
        }
        Err(_) => {
            return ToolOutput::error(format!(
                "{} is not text ({size} bytes of binary data): it cannot be shown",
                attachment.name
            ))
        }
    };
    let end = offset + text.len();
    let more = if end < size {
        format!("; call again with offset {end} for the rest")
    } else {
        String::new()
    };
    ToolOutput::ok(format!("[{}: bytes {offset}–{end} of {size}{more}]\n{text}", attachment.name))
}

#[async_trait::async_trait]
impl Tool for ReadAttachmentTool {
    fn spec(&self) -> ToolSpec {
        let names: Vec<&str> = self.attachments.iter().map(|a| a.name.as_str()).collect();
        ToolSpec {
            name: READ_ATTACHMENT.to_owned(),
            description: format!(
                "Reads a file the user attached to this chat, by name ({}). Returns up to \
                 {PAGE_BYTES} bytes of text from `offset`.",
                names.join(", ")
            ),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "enum": names},
                    "offset": {"type": "integer", "minimum": 0, "description": "Byte to start at (default 0)."}
                },
                "required": ["name"],
                "additionalProperties": false
            }),
        }
    }

    async fn call(&self, arguments: Value, _context: &ToolContext<'_>) -> ToolOutput {
        let Some(name) = arguments.get("name").and_then(Value::as_str) else {
            return ToolOutput::error("read_attachment needs a `name`");
        };
        let offset = match arguments.get("offset") {
            None | Some(Value::Null) => 0,
            Some(value) => match value.as_u64().and_then(|n| usize::try_from(n).ok()) {
                Some(offset) => offset,
                None => return ToolOutput::error("`offset` must be a whole number of bytes"),
            },
        };
        let (tool, name) = (self.clone(), name.to_owned());
        tokio::task::spawn_blocking(move || tool.read(&name, offset))
            .await
            .unwrap_or_else(|error| ToolOutput::error(format!("reading failed: {error}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(dir: &Path, files: &[(&str, &[u8])]) -> ReadAttachmentTool {
        let attachments = files
            .iter()
            .map(|(name, bytes)| {
                std::fs::write(dir.join(name), bytes).unwrap();
                Attachment {
                    name: (*name).into(),
                    size: bytes.len() as u64,
                    source: format!("/src/{name}"),
                    workspace_path: None,
                    media_type: None,
                }
            })
            .collect();
        ReadAttachmentTool::new(dir.to_path_buf(), attachments)
    }

    #[test]
    fn text_is_read_in_pages_of_whole_characters() {
        let dir = tempfile::tempdir().unwrap();
        let long = "ж".repeat(PAGE_BYTES); // two bytes each: two pages and a bit
        let tool = tool(dir.path(), &[("notes.txt", b"hello"), ("long.txt", long.as_bytes())]);
        assert_eq!(tool.read("notes.txt", 0), ToolOutput::ok("[notes.txt: bytes 0–5 of 5]\nhello"));
        let first = tool.read("long.txt", 0);
        assert!(first.content.starts_with(&format!(
            "[long.txt: bytes 0–{PAGE_BYTES} of {}; call again with offset {PAGE_BYTES}",
            2 * PAGE_BYTES
        )));
        let odd = tool.read("long.txt", 1);
        assert!(odd.is_error, "offset 1 splits a character: {}", odd.content);
        let last = tool.read("long.txt", PAGE_BYTES);
        assert!(last.content.ends_with('ж') && !last.is_error);
    }

    #[test]
    fn unknown_names_binary_files_and_bad_offsets_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let tool = tool(dir.path(), &[("a.txt", b"abc"), ("image.png", &[0x89, b'P', 0xff, 0xfe])]);
        let cases = [
            (tool.read("../etc/passwd", 0), "no attachment"),
            (tool.read("image.png", 0), "is not text"),
            (tool.read("a.txt", 9), "past the end"),
        ];
        for (output, expected) in cases {
            assert!(output.is_error && output.content.contains(expected), "{output:?}");
        }
    }
}
