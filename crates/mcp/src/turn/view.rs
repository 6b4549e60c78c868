//! What one turn sees: the servers of its profile, the tools the profile lets through and
//! their `mcp_…` names. Built fresh from the connections task's answer for every `tools` and
//! every `call`, so the profile is always the turn's own and dispatch resolves names through the
//! same map the model was shown.

use std::sync::Arc;

use preflight_protocol::tool::{ToolOutput, ToolSpec};
use serde::Serialize;

use crate::classify::ServerClass;
use crate::config::{CODE_SANDBOX, FILESYSTEM};
use crate::error::McpError;
use crate::key::ServerKey;
use crate::live::{Live, RemoteTool};
use crate::turn::naming::{server_prefix, NameMap};
use crate::turn::profile::{visible_tools, Profile, ServerTools};

/// The MCP tools a turn is offered.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSet {
    pub tools: Vec<ToolSpec>,
    /// Servers of the profile that could not be started: their tools are missing above.
    pub unavailable: Vec<Unavailable>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unavailable {
    pub server: String,
    pub error: McpError,
}

/// `GET /v1/chats/{id}/profile`: the profile's name, the MCP tool names it offers and which
/// of them tool search defers (DESIGN §17): not shown until a `tool_search` finds them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ProfileView {
    pub name: Profile,
    pub tools: Vec<String>,
    /// Set by the engine, which knows the chat's window and its recent tools.
    pub deferred: Vec<String>,
}

pub(crate) struct TurnView {
    profile: Profile,
    live: Vec<Live>,
    unavailable: Vec<Unavailable>,
    names: NameMap,
}

impl TurnView {
    pub(crate) fn new(
        profile: Profile,
        servers: Vec<(Arc<str>, Result<Live, McpError>)>,
    ) -> TurnView {
        let mut live = Vec::new();
        let mut unavailable = Vec::new();
        for (server, outcome) in servers {
            match outcome {
                Ok(l) => live.push(l),
                Err(error) => unavailable.push(Unavailable { server: server.to_string(), error }),
            }
        }
        let lists: Vec<ServerTools> = live
            .iter()
            .map(|l| ServerTools {
                server: &l.key.server,
                class: l.class,
                tools: l.tools.iter().map(|t| t.name.as_str()).collect(),
                marked: l.marked,
                read_only: l
                    .tools
                    .iter()
                    .filter(|t| t.read_only)
                    .map(|t| t.name.as_str())
                    .collect(),
            })
            .collect();
        let names = NameMap::build(visible_tools(profile, &lists));
        TurnView { profile, live, unavailable, names }
    }

    /// The running servers of this view, and those that could not start.
    pub(crate) fn servers(&self) -> (&[Live], &[Unavailable]) {
        (&self.live, &self.unavailable)
    }

    /// Whether every server of this view is still usable.
    pub(crate) fn is_open(&self) -> bool {
        self.live.iter().all(Live::is_open)
    }

    /// Whether this view uses the connection `key`.
    pub(crate) fn uses(&self, key: &ServerKey) -> bool {
        self.live.iter().any(|l| l.key == *key)
    }

    /// The generations of the servers this view was built over, in order.
    pub(crate) fn generations(&self) -> impl Iterator<Item = u64> + '_ {
        self.live.iter().map(|l| l.generation)
    }

    pub(crate) fn tool_set(&self) -> ToolSet {
        let tools = self
            .names
            .iter()
            .filter_map(|(exposed, tool)| {
                let (_, remote) = self.find(tool.server, tool.tool)?;
                Some(ToolSpec {
                    name: exposed.to_string(),
                    description: remote.description.clone(),
                    input_schema: remote.input_schema.clone(),
                })
            })
            .collect();
        ToolSet { tools, unavailable: self.unavailable.clone() }
    }

    pub(crate) fn profile_view(&self) -> ProfileView {
        ProfileView {
            name: self.profile,
            tools: self.names.iter().map(|(name, _)| name.to_string()).collect(),
            deferred: Vec::new(),
        }
    }

    /// The error of the filesystem server of this view when it is not installed (nothing ran
    /// in its place). A missing code sandbox only leaves its tools out (the chat says why).
    pub(crate) fn not_installed(&self) -> Option<&McpError> {
        let missing = self
            .unavailable
            .iter()
            .find(|u| u.server == FILESYSTEM && matches!(u.error, McpError::NotInstalled { .. }));
        missing.map(|u| &u.error)
    }

    /// The server and its own tool name behind `name`, if this turn may call it.
    pub(crate) fn resolve(&self, name: &str) -> Option<(&Live, &str)> {
        let tool = self.names.resolve(name)?;
        let (live, remote) = self.find(tool.server, tool.tool)?;
        Some((live, remote.name.as_str()))
    }

    /// The chat's code sandbox and its own name for `tool` (a tool the engine calls itself),
    /// or why this chat has none.
    pub(crate) fn sandbox_tool(&self, tool: &str) -> Result<(&Live, &str), String> {
        if let Some(live) = self.live.iter().find(|l| l.class == ServerClass::CodeSandbox) {
            let remote = live.tools.iter().find(|t| t.name == tool).ok_or_else(|| {
                format!("the code sandbox `{}` has no `{tool}` tool", live.key.server)
            })?;
            return Ok((live, remote.name.as_str()));
        }
        if let Some(down) = self.unavailable.iter().find(|u| u.server == CODE_SANDBOX) {
            return Err(format!("the code sandbox is not available: {}", down.error));
        }
        Err("this chat has no code sandbox (it needs a workspace, and `[sandbox] enabled` \
             must not be false)"
            .to_owned())
    }

    /// The error output for a name this turn cannot call; nothing is dispatched.
    pub(crate) fn refusal(&self, name: &str) -> ToolOutput {
        if let Some(down) =
            self.unavailable.iter().find(|u| name.starts_with(&server_prefix(&u.server)))
        {
            return ToolOutput::error(format!("`{name}` is not available: {}", down.error));
        }
        match self.profile {
            Profile::Planning => ToolOutput::error(format!(
                "`{name}` is not available while planning: only the read-only tools you were given can be called"
            )),
            Profile::Execution => ToolOutput::error(format!("unknown tool `{name}`")),
        }
    }

    fn find(&self, server: &str, tool: &str) -> Option<(&Live, &RemoteTool)> {
        let live = self.live.iter().find(|l| &*l.key.server == server)?;
        let remote = live.tools.iter().find(|t| t.name == tool)?;
        Some((live, remote))
    }
}
