//! The names the sandbox's guard watches in a workspace: `.git` at any depth and in any case
//! (git reads a repository there, and runs what its config or hooks name as the user) and the
//! `.dwp` plan folder at the root (the engine's records). A leaf, shared by the walk
//! (`watch.rs`) and the listings it keeps (`listings.rs`).

use std::ffi::OsStr;

/// Whether git (or Preflight) would read `name` as a repository or the plan folder.
pub fn is_watched_name(name: &OsStr, depth: usize) -> bool {
    let name = name.as_encoded_bytes();
    name.eq_ignore_ascii_case(b".git") || (depth == 0 && name.eq_ignore_ascii_case(b".dwp"))
}
