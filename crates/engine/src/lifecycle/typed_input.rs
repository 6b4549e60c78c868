//! What the user typed, made ready to send (DESIGN §17): a message whose first line is
//! `/NAME args` with NAME a prompt of the chat's MCP servers is expanded through
//! `prompts/get` into the text the model reads (the message keeps what was typed, `typed`),
//! and each `@server:uri` word attaches that resource's content. A prompt or resource that
//! cannot be had refuses the message with its own `ERR_*` code, before anything is stored;
//! a message naming neither is sent as it is (`syntax.rs` says what names one).
//!
//! This is the one asynchronous step of a send: [`Engine::send_typed`] does it, then the
//! synchronous send (`send.rs`) stores the message.

use std::path::Path;

use preflight_mcp::{OfferError, PromptInfo, PromptList, ResourceData, ResourceList};
use preflight_protocol::chat::{Chat, PastedImage, TypedPrompt};
use preflight_protocol::ids::ChatId;

use crate::lifecycle::attachments::resources::{write_resources, ResourceFile};
use crate::lifecycle::attachments::{
    attachments_dir, chat_attachments, Copies, MAX_ATTACHMENTS, MAX_ATTACHMENT_BYTES,
};
use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::{ApiError, ErrorCode};
use crate::lifecycle::transitions::profile_for;
use crate::lifecycle::view::ChatView;

mod syntax;

use syntax::{file_name, fill_arguments, resource_refs, slash_line, ArgumentError, ResourceRef};

/// The most a prompt may expand to: the expansion is stored and sent with every later turn.
pub const MAX_EXPANSION_BYTES: usize = 256 * 1024;

/// A message as it is sent: the text the model reads, what the user typed when that named
/// a prompt, and the contents of the resources it named.
pub(crate) struct Prepared {
    pub content: String,
    pub typed: Option<TypedPrompt>,
    pub resources: Vec<ResourceFile>,
}

impl Prepared {
    /// A message sent as typed.
    pub(crate) fn plain(content: &str) -> Prepared {
        Prepared { content: content.to_owned(), typed: None, resources: Vec::new() }
    }

    /// The words as the user typed them (the chat's title is taken from them).
    pub(crate) fn typed_text(&self) -> &str {
        self.typed.as_ref().map_or(&self.content, |typed| &typed.text)
    }
}

impl Engine {
    /// Sends what the user typed (the adapters' send): `/NAME args` and `@server:uri`
    /// resolved first, then [`Engine::send_with_images`]' rules. A prompt or resource that
    /// fails refuses the message and nothing is stored.
    pub async fn send_typed(
        &self,
        chat_id: &ChatId,
        content: &str,
        files: Vec<String>,
        images: Vec<PastedImage>,
    ) -> Result<ChatView, ApiError> {
        if content.trim().is_empty() {
            return Err(ApiError::bad_request("a message needs some content"));
        }
        let chat = self.inner.store.get_chat(chat_id)?;
        let prepared = self.prepare(&chat, content).await?;
        self.send_prepared(chat_id, prepared, files, images)
    }

    /// `GET /v1/chats/{id}/prompts`: the prompts of the chat's servers (never the code
    /// sandbox's); a server that did not answer is named in `failed`.
    pub async fn prompts(&self, chat_id: &ChatId) -> Result<PromptList, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let listed = self.inner.mcp.prompts(workspace_of(&chat)).await;
        listed.map_err(|error| ApiError::internal(error.to_string()))
    }

    /// `GET /v1/chats/{id}/resources`: the resources the chat's next turn may read (while
    /// planning, only read-only servers').
    pub async fn resources(&self, chat_id: &ChatId) -> Result<ResourceList, ApiError> {
        let chat = self.inner.store.get_chat(chat_id)?;
        let profile = profile_for(&self.facts(&chat)?);
        let listed = self.inner.mcp.resources(profile, workspace_of(&chat)).await;
        listed.map_err(|error| ApiError::internal(error.to_string()))
    }

    /// Writes the resources a message named into its copies (`send.rs`, once its files are
    /// copied).
    pub(super) fn attach_resources(
        &self,
        chat: &Chat,
        copies: &mut Copies,
        files: &[ResourceFile],
    ) -> Result<(), ApiError> {
        if files.is_empty() {
            return Ok(());
        }
        let taken = chat_attachments(&self.inner.store.messages(&chat.id)?);
        write_resources(copies, files, &attachments_dir(&self.inner.home, &chat.id), &taken)
    }

    async fn prepare(&self, chat: &Chat, content: &str) -> Result<Prepared, ApiError> {
        let mut prepared = Prepared::plain(content);
        let servers: Vec<String> = self.inner.mcp.servers().into_iter().map(|s| s.name).collect();
        if let Some(line) = slash_line(content) {
            if let Some((prompt, text)) = self.expand(chat, line.name, line.args, &servers).await? {
                prepared.content = match line.rest.is_empty() {
                    true => text,
                    false => format!("{text}\n\n{}", line.rest),
                };
                let (server, prompt) = (prompt.server, prompt.name);
                prepared.typed = Some(TypedPrompt { text: content.to_owned(), server, prompt });
            }
        }
        let refs = resource_refs(content, &servers);
        if !refs.is_empty() {
            prepared.resources = self.read_resources(chat, &refs).await?;
        }
        Ok(prepared)
    }

    /// The prompt `/name args` names and its expansion; `None` when it names none (the
    /// message is then plain text).
    async fn expand(
        &self,
        chat: &Chat,
        name: &str,
        args: &str,
        servers: &[String],
    ) -> Result<Option<(PromptInfo, String)>, ApiError> {
        let workspace = workspace_of(chat);
        let list = match self.inner.mcp.prompts(workspace).await {
            Ok(list) => list,
            // Without a list a bare `/word` is the user's text; only `/server:name` asked
            // for a prompt for sure.
            Err(error) if name.contains(':') => {
                return Err(ApiError::new(ErrorCode::PromptFailed, error.to_string()))
            }
            Err(error) => {
                tracing::warn!(%error, "no prompt list: the message is sent as typed");
                return Ok(None);
            }
        };
        let Some(prompt) = find_prompt(&list, name, servers)? else { return Ok(None) };
        let arguments =
            fill_arguments(&prompt.arguments, args).map_err(|e| argument_error(&prompt, e))?;
        let got = self.inner.mcp.get_prompt(workspace, &prompt.server, &prompt.name, arguments);
        let text = got.await.map_err(|e| ApiError::new(ErrorCode::PromptFailed, e.to_string()))?;
        if text.text.trim().is_empty() {
            let why = format!("prompt `{}` of MCP server `{}` gave no text", name, prompt.server);
            return Err(ApiError::new(ErrorCode::PromptFailed, why));
        }
        if text.text.len() > MAX_EXPANSION_BYTES {
            let why = format!(
                "prompt `{}` of MCP server `{}` gave {} bytes; a prompt may expand to at most \
                 {MAX_EXPANSION_BYTES} bytes",
                name,
                prompt.server,
                text.text.len()
            );
            return Err(ApiError::new(ErrorCode::PromptFailed, why));
        }
        Ok(Some((prompt, text.text)))
    }

    /// The contents of the resources `refs` name, as files; the first that cannot be read
    /// refuses the message.
    async fn read_resources(
        &self,
        chat: &Chat,
        refs: &[ResourceRef],
    ) -> Result<Vec<ResourceFile>, ApiError> {
        let profile = profile_for(&self.facts(chat)?);
        if refs.len() > MAX_ATTACHMENTS {
            let why = format!(
                "{} resources are named; a message takes at most {MAX_ATTACHMENTS} files",
                refs.len()
            );
            return Err(ApiError::new(ErrorCode::BadRequest, why));
        }
        let mut files = Vec::new();
        let mut total: u64 = 0;
        for found in refs {
            let read = self.inner.mcp.read_resource(
                profile,
                workspace_of(chat),
                &found.server,
                &found.uri,
            );
            let contents = read.await.map_err(|error| match error {
                OfferError::Unavailable(why) => ApiError::new(ErrorCode::ResourceUnavailable, why),
                OfferError::Failed(why) => ApiError::new(ErrorCode::ResourceFailed, why),
            })?;
            if contents.is_empty() {
                let why = format!("{} gave no content", found.reference());
                return Err(ApiError::new(ErrorCode::ResourceFailed, why));
            }
            for content in contents {
                if content.data.len() as u64 > MAX_ATTACHMENT_BYTES {
                    let why = format!(
                        "{} is {} bytes; resources of at most {MAX_ATTACHMENT_BYTES} bytes can be attached",
                        found.reference(),
                        content.data.len()
                    );
                    return Err(ApiError::new(ErrorCode::ResourceUnavailable, why));
                }
                total += content.data.len() as u64;
                if total > MAX_ATTACHMENT_BYTES {
                    let why = format!(
                        "the resources named take more than {MAX_ATTACHMENT_BYTES} bytes together"
                    );
                    return Err(ApiError::new(ErrorCode::ResourceUnavailable, why));
                }
                let bytes = match content.data {
                    ResourceData::Text(text) => text.into_bytes(),
                    ResourceData::Bytes(bytes) => bytes,
                };
                let name = file_name(&content.uri, content.mime_type.as_deref());
                files.push(ResourceFile { name, source: found.reference(), bytes });
            }
        }
        Ok(files)
    }
}

fn workspace_of(chat: &Chat) -> Option<&Path> {
    chat.workspace.as_deref().map(Path::new)
}

/// The prompt `name` (`server:prompt`, or a bare prompt name) names. A server that is not
/// configured, or a bare name no server has, names none; a configured server without that
/// prompt, or a bare name several servers have, is an error.
fn find_prompt(
    list: &PromptList,
    name: &str,
    servers: &[String],
) -> Result<Option<PromptInfo>, ApiError> {
    if let Some((server, prompt)) = name.split_once(':') {
        if !servers.iter().any(|s| s == server) {
            return Ok(None);
        }
        if let Some(found) = list.prompts.iter().find(|p| p.server == server && p.name == prompt) {
            return Ok(Some(found.clone()));
        }
        if let Some(down) = list.failed.iter().find(|f| f.server == server) {
            let why = format!("prompt `{prompt}` of MCP server `{server}`: {}", down.error);
            return Err(ApiError::new(ErrorCode::PromptFailed, why));
        }
        let theirs: Vec<&str> =
            list.prompts.iter().filter(|p| p.server == server).map(|p| p.name.as_str()).collect();
        let why = match theirs.is_empty() {
            true => format!("MCP server `{server}` has no prompts"),
            false => format!(
                "MCP server `{server}` has no prompt `{prompt}`; its prompts: {}",
                theirs.join(", ")
            ),
        };
        return Err(ApiError::new(ErrorCode::PromptUnknown, why));
    }
    let matching: Vec<&PromptInfo> = list.prompts.iter().filter(|p| p.name == name).collect();
    match matching.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some((*one).clone())),
        several => {
            let owners: Vec<&str> = several.iter().map(|p| p.server.as_str()).collect();
            let why = format!(
                "several MCP servers have a prompt `{name}` ({}): type /SERVER:{name}",
                owners.join(", ")
            );
            Err(ApiError::new(ErrorCode::PromptUnknown, why))
        }
    }
}

fn argument_error(prompt: &PromptInfo, error: ArgumentError) -> ApiError {
    let usage: Vec<String> = prompt
        .arguments
        .iter()
        .map(|a| if a.required { a.name.clone() } else { format!("[{}]", a.name) })
        .collect();
    let usage = format!("/{} {}", prompt.command, usage.join(" "));
    let why = match error {
        ArgumentError::Missing(names) => {
            format!("prompt `{}` needs {}: {}", prompt.name, names.join(", "), usage.trim_end())
        }
        ArgumentError::TooMany { takes, extra } => format!(
            "prompt `{}` takes {takes} argument(s); {extra:?} is one too many: {}",
            prompt.name,
            usage.trim_end()
        ),
        ArgumentError::Unclosed => format!("a quote is not closed: {}", usage.trim_end()),
    };
    ApiError::new(ErrorCode::PromptArguments, why)
}
