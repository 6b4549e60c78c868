//! The I/O half: a plan folder on disk and every read and write of it, built on the pure
//! rules (`crate::rules`) and on `preflight-files` for atomic replacement.

pub(crate) mod audit;
pub(crate) mod error;
pub(crate) mod finalize;
pub(crate) mod folder;
pub(crate) mod git_head;
pub(crate) mod history;
pub(crate) mod journal;
pub(crate) mod lock;
pub(crate) mod materialize;
pub(crate) mod migration;
pub(crate) mod outcomes;
pub(crate) mod plan_files;
pub(crate) mod protocol;
pub(crate) mod request;
pub(crate) mod task_files;
pub(crate) mod writer;
