//! What to start for a configured server: a child process (its command line filled in for the
//! workspace) or a remote server.

use std::path::Path;
use std::sync::Arc;

use crate::config::{Remote, ServerEntry};
use crate::local::{BaseEnvironment, Launch};

/// What to start: a child process, or a remote server's URL with its headers filled in.
pub(crate) enum Target {
    Process(Launch),
    Remote(Remote),
}

impl Target {
    /// What to start of `entry` for a chat in `workspace`: the process
    /// ([`ServerEntry::launch`]) starting from `base`, or the remote server; `None` when the
    /// server needs a workspace and the chat has none.
    pub(crate) fn of(
        entry: &ServerEntry,
        workspace: Option<&Path>,
        base: &Arc<BaseEnvironment>,
    ) -> Option<Target> {
        if let Some(remote) = &entry.remote {
            return Some(Target::Remote(remote.clone()));
        }
        let mut launch = entry.launch(workspace)?;
        launch.base = Arc::clone(base);
        Some(Target::Process(launch))
    }
}
