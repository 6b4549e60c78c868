//! The MCP servers as the settings screen shows and changes them: each entry of `mcp.json`
//! (or the one Preflight supplies) with its class, its own error, its state and which
//! tools each profile sees; saving an entry (`mcp/edit.rs`: validated, written atomically,
//! every other server kept), removing, restarting and testing one.

use preflight_mcp::{edit_servers, ServerChange};
use preflight_mcp::{parse_entry, parse_servers, EntryError, ServerEntry};
use preflight_mcp::{planning_uses, tool_in_profile};
use preflight_mcp::{ProbedTool, ServerState, ServerStatus};
use preflight_mcp::{Profile, ServerClass};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::lifecycle::engine::Engine;
use crate::lifecycle::error::ApiError;

/// `mcp.json` and its servers.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpSettings {
    pub path: String,
    pub servers: Vec<McpServerView>,
    /// Why the file as a whole cannot be read (not JSON, not the shape); each entry's own
    /// problem is on the entry.
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpServerView {
    pub name: String,
    /// The entry as written (to edit it).
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub entry: Value,
    pub class: Option<ServerClass>,
    /// Preflight adds it (no entry in the file runs that kind of server).
    pub supplied: bool,
    /// The entry's own error (the engine's words), or what it lacks to run.
    pub error: Option<String>,
    /// Whether planning turns see this server at all (DESIGN §4).
    pub planning: bool,
    /// `readWhilePlanning`: the planner sees its read-only tools.
    pub read_while_planning: bool,
    pub state: McpServerState,
    /// A remote (`url`) server: whether the user is signed in, and a sign-in under way.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub remote: Option<McpRemote>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpRemote {
    pub url: String,
    pub signed_in: bool,
    pub sign_in: Option<preflight_mcp::SignInState>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum McpServerState {
    NotStarted,
    Starting,
    Running { tools: Vec<McpTool> },
    Failed { error: String },
}

/// A tool of a server and whether a planning turn may see it (execution sees every one).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpTool {
    pub name: String,
    pub planning: bool,
}

/// A server entry to save (or test): `replaces` names the entry it edits.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpServerSave {
    #[serde(default)]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub replaces: Option<String>,
    pub name: String,
    #[cfg_attr(feature = "ts", ts(type = "Record<string, unknown>"))]
    pub entry: Value,
}

impl Engine {
    /// The servers of `mcp.json` with their state.
    pub async fn mcp_settings(&self) -> Result<McpSettings, ApiError> {
        let path = self.inner.mcp.options().mcp_json();
        let text = read_optional(&path)?;
        let status = self.inner.mcp.status().await.unwrap_or_default();
        let (mut servers, error) = self.entries(&path, text.as_deref());
        for server in &mut servers {
            server.state = state_of(server, &status);
            if let Some(remote) = &mut server.remote {
                remote.signed_in = self.inner.mcp.signed_in(&server.name).await;
                remote.sign_in = self.inner.mcp.sign_in_state(&server.name);
            }
        }
        Ok(McpSettings { path: path.to_string_lossy().into_owned(), servers, error })
    }

    /// Puts one entry into `mcp.json` (nothing is written when the result would not load),
    /// then reloads the servers: a changed one is stopped and starts anew on next use.
    pub async fn save_mcp_server(&self, save: McpServerSave) -> Result<McpSettings, ApiError> {
        let McpServerSave { replaces, name, entry } = save;
        self.change_mcp_json(ServerChange::Put { replaces, name, entry }).await
    }

    pub async fn remove_mcp_server(&self, name: &str) -> Result<McpSettings, ApiError> {
        self.change_mcp_json(ServerChange::Remove { name: name.to_owned() }).await
    }

    /// Stops the server's instances; chats start it afresh on their next use.
    pub async fn restart_mcp_server(&self, name: &str) -> Result<McpSettings, ApiError> {
        self.inner.mcp.restart(name).await.map_err(mcp_error)?;
        self.mcp_settings().await
    }

    /// Starts signing in to the remote server `name`: the page to open in the browser. The
    /// server restarts signed in when the browser comes back (`mcp_settings` tells).
    pub async fn sign_in_mcp_server(&self, name: &str) -> Result<String, ApiError> {
        self.inner.mcp.sign_in(name).await.map_err(mcp_error)
    }

    /// Forgets the server's tokens and restarts it.
    pub async fn sign_out_mcp_server(&self, name: &str) -> Result<McpSettings, ApiError> {
        self.inner.mcp.sign_out(name).await.map_err(mcp_error)?;
        self.mcp_settings().await
    }

    /// Starts the entry on its own and lists its tools (nothing is saved).
    pub async fn test_mcp_server(&self, save: McpServerSave) -> Result<Vec<McpTool>, ApiError> {
        let entry = parse_entry(&save.name, &save.entry).map_err(|e| ApiError::bad_request(e.0))?;
        let tools = self.inner.mcp.probe(&entry).await.map_err(mcp_error)?;
        let marked = entry.read_while_planning;
        Ok(tools.iter().map(|probed| tool(entry.class, marked, probed)).collect())
    }

    async fn change_mcp_json(&self, change: ServerChange) -> Result<McpSettings, ApiError> {
        let config = self.inner.mcp.options();
        let path = config.mcp_json();
        let text = read_optional(&path)?;
        let next = edit_servers(&path, text.as_deref(), &change, config)
            .map_err(|error| ApiError::bad_request(error.to_string()))?;
        preflight_files::write_atomic(&path, next.as_bytes())
            .map_err(|error| ApiError::internal(error.to_string()))?;
        self.inner.mcp.reload().await.map_err(mcp_error)?;
        self.mcp_settings().await
    }

    /// Every entry of the file, each with its own error, plus the ones Preflight supplies
    /// when the whole file loads.
    fn entries(
        &self,
        path: &std::path::Path,
        text: Option<&str>,
    ) -> (Vec<McpServerView>, Option<String>) {
        let config = self.inner.mcp.options();
        let parsed: Result<Value, String> = match text {
            None => Ok(Value::Object(Default::default())),
            Some(text) => {
                serde_json::from_str(text).map_err(|e| format!("{}: {e}", path.display()))
            }
        };
        let raw = match parsed {
            Ok(value) => {
                value.get("mcpServers").and_then(Value::as_object).cloned().unwrap_or_default()
            }
            Err(error) => return (Vec::new(), Some(error)),
        };
        let mut views: Vec<McpServerView> = raw
            .iter()
            .map(|(name, entry)| view(name, entry.clone(), parse_entry(name, entry), false))
            .collect();
        let whole = parse_servers(path, text.unwrap_or("{}"), config);
        if let Ok(loaded) = &whole {
            for entry in loaded.iter().filter(|entry| !raw.contains_key(&entry.name)) {
                views.push(view(&entry.name, supplied_entry(entry), Ok(entry.clone()), true));
            }
        }
        let error = whole
            .err()
            .map(|error| error.to_string())
            .filter(|_| views.iter().all(|v| v.error.is_none()));
        (views, error)
    }
}

fn view(
    name: &str,
    entry: Value,
    parsed: Result<ServerEntry, EntryError>,
    supplied: bool,
) -> McpServerView {
    let remote = parsed
        .as_ref()
        .ok()
        .and_then(|parsed| parsed.remote.as_ref())
        .map(|remote| McpRemote { url: remote.url.clone(), signed_in: false, sign_in: None });
    let (class, error, marked) = match parsed {
        Ok(parsed) => (Some(parsed.class), parsed.missing, parsed.read_while_planning),
        Err(error) => (None, Some(error.0), false),
    };
    McpServerView {
        name: name.to_owned(),
        entry,
        class,
        supplied,
        error,
        planning: class.is_some_and(|class| planning_uses(class, marked)),
        read_while_planning: marked,
        state: McpServerState::NotStarted,
        remote,
    }
}

/// The entry Preflight supplies, in the file's format (to copy into `mcp.json` and change).
fn supplied_entry(entry: &ServerEntry) -> Value {
    let env: serde_json::Map<String, Value> =
        entry.env.iter().map(|(k, v)| (k.clone(), Value::String(v.clone()))).collect();
    serde_json::json!({"command": entry.command, "args": entry.args, "env": env})
}

/// One state for all instances of a server: running beats starting beats failed.
fn state_of(server: &McpServerView, status: &[ServerStatus]) -> McpServerState {
    let mine: Vec<&ServerState> =
        status.iter().filter(|s| s.server == server.name).map(|s| &s.state).collect();
    let (class, marked) = (server.class.unwrap_or(ServerClass::Other), server.read_while_planning);
    if let Some(ServerState::Running { tools, .. }) =
        mine.iter().find(|s| matches!(s, ServerState::Running { .. }))
    {
        return McpServerState::Running {
            tools: tools.iter().map(|probed| tool(class, marked, probed)).collect(),
        };
    }
    if mine.iter().any(|s| matches!(s, ServerState::Starting)) {
        return McpServerState::Starting;
    }
    match mine.iter().find_map(|s| match s {
        ServerState::Failed { error } => Some(error.clone()),
        _ => None,
    }) {
        Some(error) => McpServerState::Failed { error },
        None => McpServerState::NotStarted,
    }
}

fn tool(class: ServerClass, marked: bool, probed: &ProbedTool) -> McpTool {
    let by_class = tool_in_profile(Profile::Planning, class, &probed.name);
    McpTool { name: probed.name.clone(), planning: by_class || marked && probed.read_only }
}

fn read_optional(path: &std::path::Path) -> Result<Option<String>, ApiError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(ApiError::internal(format!("{}: {error}", path.display()))),
    }
}

fn mcp_error(error: preflight_mcp::McpError) -> ApiError {
    ApiError::bad_request(error.to_string())
}
