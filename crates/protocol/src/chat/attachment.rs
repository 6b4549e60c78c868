//! A file attached to a user message: what the window shows and the model is told.
//!
//! The file itself is copied at send time into the chat's attachments folder
//! (`$PREFLIGHT_HOME/attachments/<chat>/<name>`, see `lifecycle/attachments.rs`), so what the
//! model reads is what the user attached, even when the original changes or lies outside the
//! workspace. `name` is unique within the chat: it is how the `read_attachment` tool names it.
//! An image (`media_type` set) is also shown to a vision model as an image (`image.rs`); the
//! images an MCP tool returned are kept the same way, listed on their tool message.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Attachment {
    /// The file's name in this chat (the original's, with `-2`, `-3`… on a clash).
    pub name: String,
    /// Bytes, as copied.
    #[cfg_attr(feature = "ts", ts(type = "number"))]
    pub size: u64,
    /// Where it was attached from: an absolute path, `pasted` (an image pasted into the
    /// message box), or `tool NAME` (an image a tool returned).
    pub source: String,
    /// Its path relative to the chat's workspace, when it lies there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub workspace_path: Option<String>,
    /// Set when it is an image a model can be shown (PNG, JPEG, GIF or WebP, told by its
    /// bytes, of at most 20 MiB): `image/png`, … Absent on rows stored before images were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub media_type: Option<String>,
}

impl Attachment {
    /// One line of the model's view of the message: name, size, and the workspace path.
    pub fn describe(&self) -> String {
        let place = match &self.workspace_path {
            Some(path) => format!(", also in the workspace at {path}"),
            None => String::new(),
        };
        let kind = match &self.media_type {
            Some(media_type) => format!(", {media_type}"),
            None => String::new(),
        };
        format!("- {} ({}{kind}){place}", self.name, human_size(self.size))
    }
}

/// What the model reads after a user message's text when the message has attachments.
pub fn attachments_note(attachments: &[Attachment]) -> String {
    let lines: Vec<String> = attachments.iter().map(Attachment::describe).collect();
    format!(
        "\n\nAttached files (read them with the read_attachment tool, by name):\n{}",
        lines.join("\n")
    )
}

/// `512 B`, `12.3 kB`, `4.5 MB`: decimal units, as the window shows them.
pub fn human_size(bytes: u64) -> String {
    match bytes {
        0..1_000 => format!("{bytes} B"),
        1_000..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        _ => format!("{:.1} MB", bytes as f64 / 1e6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_stored_before_images_still_read() {
        let old = r#"{"name":"a.txt","size":3,"source":"/a.txt"}"#;
        let read: Attachment = serde_json::from_str(old).unwrap();
        assert_eq!(read.media_type, None);
        assert_eq!(serde_json::to_string(&read).unwrap(), old, "nothing added when not an image");
    }

    #[test]
    fn the_model_reads_names_sizes_and_workspace_paths() {
        let outside = Attachment {
            name: "report.csv".into(),
            size: 12_345,
            source: "/home/u/report.csv".into(),
            workspace_path: None,
            media_type: None,
        };
        let inside = Attachment {
            name: "lib.rs".into(),
            size: 512,
            source: "/w/src/lib.rs".into(),
            workspace_path: Some("src/lib.rs".into()),
            media_type: None,
        };
        let image = Attachment {
            name: "cat.png".into(),
            size: 2_048,
            source: "pasted".into(),
            workspace_path: None,
            media_type: Some("image/png".into()),
        };
        assert_eq!(
            attachments_note(&[outside, inside, image]),
            "\n\nAttached files (read them with the read_attachment tool, by name):\n\
             - report.csv (12.3 kB)\n- lib.rs (512 B), also in the workspace at src/lib.rs\n\
             - cat.png (2.0 kB, image/png)"
        );
        assert_eq!(human_size(4_500_000), "4.5 MB");
    }
}
