//! Servers' prompts and resources (DESIGN §17), through the same running servers as their
//! tools: listed (`prompts/list`, `resources/list`), a prompt got (`prompts/get`) and a
//! resource read (`resources/read`). Only servers that advertise the capability are asked;
//! one that fails or does not answer in time is named in the answer, never an empty list.
//!
//! **Invariant:** the profile rules hold (DESIGN §4). Resources come only from the servers
//! of the profile of the chat's next turn (while planning: the filesystem server, context7,
//! servers marked readable while planning); prompts, which the user asks for by name and
//! which only give text, from every server of the chat. The code sandbox is never asked.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use base64::Engine as _;
use futures_util::future::join_all;
use rmcp::model::{
    ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult, JsonObject,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents, Role,
};
use rmcp::ServiceError;

use crate::catalog::{
    OfferError, PromptArgument, PromptInfo, PromptList, PromptText, ResourceContent, ResourceData,
    ResourceInfo, ResourceList, ServerFailure,
};
use crate::classify::ServerClass;
use crate::client::{next_round, MAX_ROUNDS};
use crate::error::McpError;
use crate::host::McpHost;
use crate::live::Live;
use crate::turn::Profile;

/// How long one server may take to list its prompts or resources.
const LIST_TIMEOUT: Duration = Duration::from_secs(10);

impl McpHost {
    /// The prompts of the chat's servers (those of the execution profile but the code
    /// sandbox), each with its arguments and the command that uses it.
    pub async fn prompts(&self, workspace: Option<&Path>) -> Result<PromptList, McpError> {
        let (lives, mut failed) = self.offering(Profile::Execution, workspace).await?;
        let asked = lives.iter().filter(|l| has_prompts(l)).map(|live| async move {
            let listed = ask(&live.key.server, LIST_TIMEOUT, live.peer.list_all_prompts()).await;
            (live.key.server.to_string(), listed)
        });
        let mut prompts = Vec::new();
        for (server, listed) in join_all(asked).await {
            match listed {
                Ok(list) => prompts.extend(list.into_iter().map(|p| prompt_info(&server, p))),
                Err(error) => failed.push(ServerFailure { server, error }),
            }
        }
        name_commands(&mut prompts);
        Ok(PromptList { prompts, failed })
    }

    /// The resources the chat's next turn (of `profile`) may read.
    pub async fn resources(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
    ) -> Result<ResourceList, McpError> {
        let (lives, mut failed) = self.offering(profile, workspace).await?;
        let asked = lives.iter().filter(|l| has_resources(l)).map(|live| async move {
            let listed = ask(&live.key.server, LIST_TIMEOUT, live.peer.list_all_resources()).await;
            (live.key.server.to_string(), listed)
        });
        let mut resources = Vec::new();
        for (server, listed) in join_all(asked).await {
            match listed {
                Ok(list) => resources.extend(list.into_iter().map(|r| ResourceInfo {
                    reference: format!("@{server}:{}", r.uri),
                    server: server.clone(),
                    uri: r.uri,
                    name: r.name,
                    title: r.title,
                    description: r.description,
                    mime_type: r.mime_type,
                    size: r.size,
                })),
                Err(error) => failed.push(ServerFailure { server, error }),
            }
        }
        Ok(ResourceList { resources, failed })
    }

    /// Gets prompt `name` of `server` with `arguments` (checked by the caller against the
    /// prompt's declared ones) as the text the model reads.
    pub async fn get_prompt(
        &self,
        workspace: Option<&Path>,
        server: &str,
        name: &str,
        arguments: JsonObject,
    ) -> Result<PromptText, OfferError> {
        let live = self.offered(Profile::Execution, workspace, server).await?;
        let params = GetPromptRequestParams::new(name).with_arguments(arguments);
        let limit = self.options().call_timeout;
        let result = ask(server, limit, prompt_rounds(&live, params)).await;
        let result = result.map_err(|e| OfferError::Failed(format!("prompt `{name}`: {e}")))?;
        let parts: Vec<String> = result.messages.iter().filter_map(message_text).collect();
        Ok(PromptText { text: parts.join("\n\n") })
    }

    /// Reads resource `uri` of `server`, when the chat's next turn (of `profile`) may.
    pub async fn read_resource(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        server: &str,
        uri: &str,
    ) -> Result<Vec<ResourceContent>, OfferError> {
        let live = self.offered(profile, workspace, server).await?;
        let limit = self.options().call_timeout;
        let params = ReadResourceRequestParams::new(uri);
        let result = ask(server, limit, resource_rounds(&live, params)).await;
        let result = result.map_err(|e| OfferError::Failed(format!("resource {uri}: {e}")))?;
        result.contents.into_iter().map(resource_content).collect()
    }

    /// The running servers of `profile` but the code sandbox, and those that did not start.
    async fn offering(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
    ) -> Result<(Vec<Live>, Vec<ServerFailure>), McpError> {
        let view = self.view(profile, workspace, true).await?;
        let (lives, down) = view.servers();
        let sandbox = |server: &str| {
            self.servers().iter().any(|s| s.name == server && s.class == ServerClass::CodeSandbox)
        };
        let lives = lives.iter().filter(|l| l.class != ServerClass::CodeSandbox).cloned();
        let failed = down
            .iter()
            .filter(|u| !sandbox(&u.server))
            .map(|u| ServerFailure { server: u.server.clone(), error: u.error.to_string() });
        Ok((lives.collect(), failed.collect()))
    }

    /// The running server `server` of `profile`, or why it cannot be asked.
    async fn offered(
        &self,
        profile: Profile,
        workspace: Option<&Path>,
        server: &str,
    ) -> Result<Live, OfferError> {
        let (lives, failed) = self
            .offering(profile, workspace)
            .await
            .map_err(|error| OfferError::Failed(error.to_string()))?;
        if let Some(live) = lives.into_iter().find(|l| &*l.key.server == server) {
            return Ok(live);
        }
        if let Some(down) = failed.into_iter().find(|f| f.server == server) {
            return Err(OfferError::Failed(down.error));
        }
        Err(OfferError::Unavailable(match profile {
            Profile::Planning => format!(
                "MCP server `{server}` is not available while planning: only read-only servers \
                 (the filesystem, context7, or one marked readable while planning) are"
            ),
            Profile::Execution => format!("this chat has no MCP server `{server}`"),
        }))
    }
}

fn has_prompts(live: &Live) -> bool {
    live.peer.peer_info().is_some_and(|info| info.capabilities.prompts.is_some())
}

fn has_resources(live: &Live) -> bool {
    live.peer.peer_info().is_some_and(|info| info.capabilities.resources.is_some())
}

/// `call` within `limit`, its failure in words naming `server`.
async fn ask<T, E: std::fmt::Display>(
    server: &str,
    limit: Duration,
    call: impl Future<Output = Result<T, E>>,
) -> Result<T, String> {
    match tokio::time::timeout(limit, call).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(format!("MCP server `{server}` answered with an error: {error}")),
        Err(_) => Err(format!("MCP server `{server}` did not answer within {} s", limit.as_secs())),
    }
}

/// `prompts/get`, following a 2026-07-28 server's `input_required` rounds. No tool call
/// runs, so nobody is asked: its questions are declined, as a 2025 server's are, and the
/// server decides what that means for the prompt.
async fn prompt_rounds(
    live: &Live,
    mut params: GetPromptRequestParams,
) -> Result<GetPromptResult, String> {
    for _ in 0..MAX_ROUNDS {
        let wanted = match live.peer.get_prompt_once(params.clone()).await {
            Ok(GetPromptResponse::Complete(result)) => return Ok(result),
            Ok(GetPromptResponse::InputRequired(wanted)) => wanted,
            Ok(_) => return Err(ServiceError::UnexpectedResponse.to_string()),
            Err(error) => return Err(error.to_string()),
        };
        let next = next_round(&live.key.server, &live.askers, None, wanted).await?;
        (params.input_responses, params.request_state) = next;
    }
    Err(format!("it still wanted input after {MAX_ROUNDS} rounds"))
}

/// `resources/read`, following `input_required` rounds as [`prompt_rounds`] does.
async fn resource_rounds(
    live: &Live,
    mut params: ReadResourceRequestParams,
) -> Result<ReadResourceResult, String> {
    for _ in 0..MAX_ROUNDS {
        let wanted = match live.peer.read_resource_once(params.clone()).await {
            Ok(ReadResourceResponse::Complete(result)) => return Ok(result),
            Ok(ReadResourceResponse::InputRequired(wanted)) => wanted,
            Ok(_) => return Err(ServiceError::UnexpectedResponse.to_string()),
            Err(error) => return Err(error.to_string()),
        };
        let next = next_round(&live.key.server, &live.askers, None, wanted).await?;
        (params.input_responses, params.request_state) = next;
    }
    Err(format!("it still wanted input after {MAX_ROUNDS} rounds"))
}

fn prompt_info(server: &str, prompt: rmcp::model::Prompt) -> PromptInfo {
    let arguments = prompt.arguments.unwrap_or_default().into_iter().map(|a| PromptArgument {
        name: a.name,
        description: a.description,
        required: a.required.unwrap_or(false),
    });
    PromptInfo {
        server: server.to_owned(),
        command: String::new(),
        name: prompt.name,
        title: prompt.title,
        description: prompt.description,
        arguments: arguments.collect(),
    }
}

/// Each prompt's command: its bare name when that is unique among the listed prompts and
/// usable as a word (no space, no colon), else `server:name`.
fn name_commands(prompts: &mut [PromptInfo]) {
    let names: Vec<String> = prompts.iter().map(|p| p.name.clone()).collect();
    for prompt in prompts.iter_mut() {
        let unique = names.iter().filter(|n| **n == prompt.name).count() == 1;
        let word = !prompt.name.is_empty() && !prompt.name.contains([':', ' ', '\t', '\n']);
        prompt.command = match unique && word {
            true => prompt.name.clone(),
            false => format!("{}:{}", prompt.server, prompt.name),
        };
    }
}

/// A prompt message as text: its text, an embedded text resource as a fenced block, and a
/// note in place of what the model cannot be given here (an image, audio, a blob).
fn message_text(message: &rmcp::model::PromptMessage) -> Option<String> {
    let text = match &message.content {
        ContentBlock::Text(text) => text.text.clone(),
        ContentBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                format!("Resource {uri}:\n```\n{text}\n```")
            }
            ResourceContents::BlobResourceContents { uri, .. } => {
                format!("(the prompt included resource {uri}, which is binary and left out)")
            }
            _ => return None,
        },
        ContentBlock::ResourceLink(link) => format!("Resource {}", link.uri),
        _ => "(the prompt included an image or audio, which is left out)".to_owned(),
    };
    Some(match message.role {
        Role::User => text,
        Role::Assistant => format!("[assistant] {text}"),
    })
}

fn resource_content(contents: ResourceContents) -> Result<ResourceContent, OfferError> {
    Ok(match contents {
        ResourceContents::TextResourceContents { uri, mime_type, text, .. } => {
            ResourceContent { uri, mime_type, data: ResourceData::Text(text) }
        }
        ResourceContents::BlobResourceContents { uri, mime_type, blob, .. } => {
            let bytes =
                base64::engine::general_purpose::STANDARD.decode(blob.trim()).map_err(|error| {
                    OfferError::Failed(format!("resource {uri}: its blob is not base64: {error}"))
                })?;
            ResourceContent { uri, mime_type, data: ResourceData::Bytes(bytes) }
        }
        _ => return Err(OfferError::Failed("a resource content of an unknown kind".to_owned())),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn prompt(server: &str, name: &str) -> PromptInfo {
        prompt_info(server, rmcp::model::Prompt::new(name, None::<String>, None))
    }

    #[test]
    fn a_prompt_is_typed_by_its_name_unless_another_server_has_it_too() {
        let mut prompts = [
            prompt("everything", "args-prompt"),
            prompt("a", "review"),
            prompt("b", "review"),
            prompt("b", "two words"),
        ];
        name_commands(&mut prompts);
        let commands: Vec<&str> = prompts.iter().map(|p| p.command.as_str()).collect();
        assert_eq!(commands, ["args-prompt", "a:review", "b:review", "b:two words"]);
    }
}
