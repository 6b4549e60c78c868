//! What servers offer besides tools (DESIGN §17): their prompts and resources as the chat's
//! adapters list them, a prompt got with arguments, a resource read, and why one of those
//! failed. Data only; the host's side is `prompts.rs`.

use serde::Serialize;

/// `GET /v1/chats/{id}/prompts`: the prompts of the chat's servers that offer any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptList {
    pub prompts: Vec<PromptInfo>,
    /// Servers that were asked and did not answer (failed to start, an error, a timeout).
    pub failed: Vec<ServerFailure>,
}

/// One prompt of one server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptInfo {
    pub server: String,
    /// The prompt's own name on its server.
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
    /// In the order the prompt declares them: positional words fill them in this order.
    pub arguments: Vec<PromptArgument>,
    /// What the user types to use it, without the slash: the prompt's name where no other
    /// server has a prompt of that name, else `server:name` (which always works).
    pub command: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PromptArgument {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
    pub required: bool,
}

/// `GET /v1/chats/{id}/resources`: the resources the chat's next turn may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResourceList {
    pub resources: Vec<ResourceInfo>,
    pub failed: Vec<ServerFailure>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ResourceInfo {
    pub server: String,
    pub uri: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub mime_type: Option<String>,
    /// In bytes, when the server says.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "number"))]
    pub size: Option<u64>,
    /// What the user types in a message to attach it: `@server:uri`.
    pub reference: String,
}

/// A server that was asked and did not answer, with why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ServerFailure {
    pub server: String,
    pub error: String,
}

/// A prompt as `prompts/get` gave it, in words the model reads: its messages' text, in
/// order (embedded text resources inline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptText {
    pub text: String,
}

/// One content of a resource read: text, or bytes (a blob, decoded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceContent {
    pub uri: String,
    pub mime_type: Option<String>,
    pub data: ResourceData,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResourceData {
    Text(String),
    Bytes(Vec<u8>),
}

impl ResourceData {
    pub fn len(&self) -> usize {
        match self {
            ResourceData::Text(text) => text.len(),
            ResourceData::Bytes(bytes) => bytes.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Why a prompt could not be got or a resource read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OfferError {
    /// No such server in this chat, or it is not offered to the chat's next turn.
    #[error("{0}")]
    Unavailable(String),
    /// The server answered with an error, did not answer in time, or is down.
    #[error("{0}")]
    Failed(String),
}
