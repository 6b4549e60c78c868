//! Changing `mcp.json` from the settings screen: one server entry put (added, replaced or
//! renamed) or removed, every other key and server kept as it was, in file order. The
//! result must load by the same rules as at start ([`parse_servers`]), or nothing is
//! written and the error names the file and the problem, as the engine gives it.

use std::path::Path;

use serde_json::{Map, Value};

use crate::config::{parse_servers, Supplied};
use crate::error::McpError;

/// One change to the servers of `mcp.json`.
#[derive(Debug, Clone, PartialEq)]
pub enum ServerChange {
    /// Adds `name`, or replaces `replaces` (the entry's name before an edit, which may
    /// differ: a rename keeps its place in the file).
    Put {
        replaces: Option<String>,
        name: String,
        entry: Value,
    },
    Remove {
        name: String,
    },
}

/// The text of `mcp.json` after `change`; `current` is the file's text (`None`: absent).
pub fn edit_servers<'a>(
    path: &Path,
    current: Option<&str>,
    change: &ServerChange,
    supplied: impl Into<Supplied<'a>>,
) -> Result<String, McpError> {
    let error = |message: String| McpError::Config { path: path.to_path_buf(), message };
    let mut file: Value = match current {
        None => Value::Object(Map::new()),
        Some(text) => {
            serde_json::from_str(text).map_err(|e| error(format!("{e}: fix it first")))?
        }
    };
    let Some(root) = file.as_object_mut() else {
        return Err(error("is not a JSON object".into()));
    };
    let servers = root.entry("mcpServers").or_insert_with(|| Value::Object(Map::new()));
    let Some(servers) = servers.as_object_mut() else {
        return Err(error("`mcpServers` is not an object".into()));
    };
    *servers = changed(std::mem::take(servers), change).map_err(error)?;
    let text = serde_json::to_string_pretty(&file).map_err(|e| error(e.to_string()))? + "\n";
    parse_servers(path, &text, supplied)?;
    Ok(text)
}

fn changed(
    servers: Map<String, Value>,
    change: &ServerChange,
) -> Result<Map<String, Value>, String> {
    match change {
        ServerChange::Remove { name } => {
            if !servers.contains_key(name) {
                return Err(format!("has no server `{name}`"));
            }
            Ok(servers.into_iter().filter(|(key, _)| key != name).collect())
        }
        ServerChange::Put { replaces, name, entry } => {
            if name.trim().is_empty() {
                return Err("a server needs a name".into());
            }
            if !entry.is_object() {
                return Err(format!("server `{name}`: an entry is a JSON object"));
            }
            let old = replaces.as_deref().unwrap_or(name);
            if replaces.is_some() && !servers.contains_key(old) {
                return Err(format!("has no server `{old}` (changed meanwhile?)"));
            }
            if name != old && servers.contains_key(name)
                || replaces.is_none() && servers.contains_key(name)
            {
                return Err(format!("already has a server `{name}`"));
            }
            let mut out = Map::new();
            let mut placed = false;
            for (key, value) in servers {
                if key == old {
                    out.insert(name.clone(), entry.clone());
                    placed = true;
                } else {
                    out.insert(key, value);
                }
            }
            if !placed {
                out.insert(name.clone(), entry.clone());
            }
            Ok(out)
        }
    }
}

#[cfg(test)]
mod tests;
