//! Reading `mcp.json` text into entries by the rules the module doc gives (file order, a key
//! given twice is an error, the supplied entries added last). Pure: the text is passed in.

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use crate::classify::{classify, ServerClass};
use crate::config::entry::ServerEntry;
use crate::config::names::{CODE_SANDBOX, FILESYSTEM};
use crate::config::remote::{self, PreRegistered, Remote, RemoteKind};
use crate::config::supplied::{default_filesystem, default_sandbox, Supplied};
use crate::error::McpError;

/// The servers of the `mcp.json` text read from `path` (named in error messages only), plus
/// the supplied filesystem and sandbox entries when they have none of their own.
pub fn parse_servers<'a>(
    path: &Path,
    text: &str,
    supplied: impl Into<Supplied<'a>>,
) -> Result<Vec<ServerEntry>, McpError> {
    let supplied = supplied.into();
    let error = |message: String| McpError::Config { path: path.to_path_buf(), message };
    if text.trim().is_empty() {
        return Err(error("is empty; write {\"mcpServers\": {}} or remove the file".into()));
    }
    let file: FileShape = serde_json::from_str(text).map_err(|e| error(e.to_string()))?;
    let mut servers = Vec::new();
    for (name, raw) in file.servers.0 {
        servers.push(raw.into_entry(name).map_err(error)?);
    }
    let has_filesystem =
        servers.iter().any(|s| s.name == FILESYSTEM || s.class == ServerClass::Filesystem);
    if !has_filesystem {
        servers.push(default_filesystem(supplied));
    }
    let has_sandbox =
        servers.iter().any(|s| s.name == CODE_SANDBOX || s.class == ServerClass::CodeSandbox);
    if let (false, Some(sandbox)) = (has_sandbox, supplied.sandbox) {
        servers.push(default_sandbox(sandbox, supplied.data_dir));
    }
    Ok(servers)
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(rename = "mcpServers", default)]
    servers: Ordered<RawEntry>,
}

/// One entry of `mcp.json` read on its own, by the rules of [`parse_servers`]: the settings
/// screen shows each entry's own error.
pub fn parse_entry(name: &str, entry: &serde_json::Value) -> Result<ServerEntry, EntryError> {
    let raw: RawEntry = serde_json::from_value(entry.clone())
        .map_err(|error| EntryError(format!("server `{name}`: {error}")))?;
    raw.into_entry(name.to_owned()).map_err(EntryError)
}

/// What is wrong with one `mcp.json` entry, in words for the settings screen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct EntryError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: Ordered<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(rename = "readWhilePlanning", default)]
    read_while_planning: bool,
    url: Option<String>,
    #[serde(default)]
    headers: Ordered<String>,
    oauth: Option<RawOAuth>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawOAuth {
    #[serde(rename = "clientId")]
    client_id: Option<String>,
    #[serde(rename = "clientSecret")]
    client_secret: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

impl RawEntry {
    fn into_entry(self, name: String) -> Result<ServerEntry, String> {
        if name.trim().is_empty() {
            return Err("a server has an empty name".into());
        }
        let kind = remote::remote_kind(self.kind.as_deref())
            .map_err(|error| format!("server `{name}`: {error}"))?;
        if self.url.is_some() || kind.is_some() {
            return self.into_remote(name, kind.unwrap_or(RemoteKind::StreamableHttp));
        }
        if !self.headers.0.is_empty() || self.oauth.is_some() {
            return Err(format!("server `{name}`: `headers` and `oauth` are for `url` servers"));
        }
        let command = match self.command {
            Some(command) if !command.trim().is_empty() => command,
            _ => return Err(format!("server `{name}`: `command` (or `url`) is missing or empty")),
        };
        let class = classify(&name, &command, &self.args);
        let read_while_planning = self.read_while_planning;
        let (args, env) = (self.args, self.env.0);
        Ok(ServerEntry {
            name,
            command,
            args,
            env,
            class,
            missing: None,
            read_while_planning,
            remote: None,
        })
    }

    fn into_remote(self, name: String, kind: RemoteKind) -> Result<ServerEntry, String> {
        let error = |message: String| format!("server `{name}`: {message}");
        if self.command.is_some() || !self.args.is_empty() || !self.env.0.is_empty() {
            return Err(error("a `url` server has no `command`, `args` or `env`".into()));
        }
        let url = self.url.ok_or_else(|| error("`url` is missing".into()))?;
        remote::check_url(&url).map_err(error)?;
        for (header, value) in &self.headers.0 {
            remote::check_header(header, value).map_err(error)?;
        }
        let (client, scopes) = match self.oauth {
            None => (None, Vec::new()),
            Some(oauth) => {
                let client = match oauth.client_id {
                    Some(id) if id.trim().is_empty() => {
                        return Err(error("`oauth.clientId` is empty".into()))
                    }
                    Some(client_id) => {
                        Some(PreRegistered { client_id, client_secret: oauth.client_secret })
                    }
                    None if oauth.client_secret.is_some() => {
                        return Err(error("`oauth.clientSecret` needs `oauth.clientId`".into()))
                    }
                    None => None,
                };
                (client, oauth.scopes)
            }
        };
        let headers = self.headers.0;
        let typed = self.kind.is_some();
        let remote = Remote { url, kind, typed, headers, client, scopes };
        Ok(ServerEntry {
            name,
            command: String::new(),
            args: Vec::new(),
            env: Vec::new(),
            class: ServerClass::Other,
            missing: None,
            read_while_planning: self.read_while_planning,
            remote: Some(remote),
        })
    }
}

/// A JSON object read in file order, where a key given twice is an error (serde_json would
/// silently keep the last one).
struct Ordered<T>(Vec<(String, T)>);

impl<T> Default for Ordered<T> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Ordered<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_map(OrderedVisitor(PhantomData))
    }
}

struct OrderedVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for OrderedVisitor<T> {
    type Value = Ordered<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Ordered<T>, A::Error> {
        let mut entries: Vec<(String, T)> = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            if entries.iter().any(|(k, _)| *k == key) {
                return Err(de::Error::custom(format!("`{key}` is given twice")));
            }
            let value = map.next_value()?;
            entries.push((key, value));
        }
        Ok(Ordered(entries))
    }
}
