//! Local servers: an entry's command line run as a child process of its own process group,
//! spoken to over its stdio. `launch` decides what the process gets (environment allowlist,
//! program resolution, working folder), `process` owns the process group, `transport` reads
//! its stdout with a size limit.

mod launch;
mod process;
mod transport;

pub use launch::{apply_inherited_env, BaseEnvironment, Launch, ALLOWED_ENV};
pub(crate) use process::{has_exited_without_reaping, spawn, Pipes, ServerProcess};
pub(crate) use transport::StdioTransport;
