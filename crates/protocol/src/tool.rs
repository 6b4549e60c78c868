//! What a model is offered as a tool and what a tool call returns: the contract between
//! the agent loop, the built-in tools and the MCP host.

use serde::{Deserialize, Serialize};

use crate::chat::ImagePart;

/// A tool as a provider API sees it: a name, a description and a JSON Schema of its input.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub input_schema: serde_json::Value,
}

/// The result of one tool call, as the model will read it. A failure the model should see
/// (a refused call, a tool error) is `is_error: true`, not a Rust error. `images` are the
/// images it returned (an MCP server's image content), which a vision model is shown beside
/// `content`, where each is described in a line for any model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolOutput {
    pub content: String,
    pub is_error: bool,
    /// Not serialised: an image travels to the model and to the store, never in an event.
    #[serde(skip)]
    pub images: Vec<ImagePart>,
}

impl ToolOutput {
    pub fn ok(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: false, images: Vec::new() }
    }

    pub fn error(content: impl Into<String>) -> ToolOutput {
        ToolOutput { content: content.into(), is_error: true, images: Vec::new() }
    }

    pub fn with_images(self, images: Vec<ImagePart>) -> ToolOutput {
        ToolOutput { images, ..self }
    }
}
