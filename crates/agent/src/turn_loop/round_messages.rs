//! The messages a round is stored as: the model's answer (with its tool calls) and one
//! result per call, with the images a tool returned beside the result that shows them.

use preflight_protocol::chat::{Attachment, ImagePart, Message, MessageBody, ToolCall};
use preflight_protocol::ids::MessageId;
use preflight_protocol::tool::ToolOutput;

/// A tool call's result: the message stored, and the images the model is shown with it
/// (none for a model that is not shown images).
pub(crate) struct ToolResult {
    pub(crate) message: Message,
    pub(crate) images: Vec<ImagePart>,
}

impl ToolResult {
    /// Whether the call answered without an error.
    pub(crate) fn answered_well(&self) -> bool {
        matches!(self.message.body, MessageBody::Tool { is_error: false, .. })
    }
}

pub(crate) fn assistant(id: MessageId, content: String, tool_calls: Vec<ToolCall>) -> Message {
    Message {
        id,
        created_at: preflight_dwp::now_rfc3339(),
        body: MessageBody::Assistant {
            content,
            questions: None,
            plan: None,
            tool_calls,
            notice: None,
        },
    }
}

/// The stored result of `call` (message `id`), listing the images kept for it.
pub(crate) fn tool_result(
    id: MessageId,
    call: &ToolCall,
    output: ToolOutput,
    attachments: Vec<Attachment>,
) -> Message {
    Message {
        id,
        created_at: preflight_dwp::now_rfc3339(),
        body: MessageBody::Tool {
            tool_call_id: call.id.clone(),
            name: call.name.clone(),
            content: output.content,
            is_error: output.is_error,
            attachments,
        },
    }
}
