//! The identity of one connection. A leaf: it imports nothing of the host.

use std::path::PathBuf;
use std::sync::Arc;

/// One connection's identity: workspace-less servers are shared by every chat.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ServerKey {
    pub server: Arc<str>,
    pub workspace: Option<PathBuf>,
}
