//! Whether a round changed the workspace: a fingerprint of its files' paths, sizes and
//! modification times, compared round to round (the progress of `round_rule.rs`). Bounded:
//! build output, dependencies and version control are left out, and at most
//! [`MAX_ENTRIES`] entries are read, so a huge tree costs a bounded walk per round.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Entries a fingerprint reads at most.
pub const MAX_ENTRIES: usize = 20_000;

/// Folders whose churn is not the work itself: version control, dependencies, build output.
const LEFT_OUT: &[&str] =
    &[".git", "node_modules", "target", "__pycache__", ".venv", ".mypy_cache", ".pytest_cache"];

/// The workspace's fingerprint: equal fingerprints mean no file was added, removed,
/// resized or rewritten (as far as the walk reached). Unreadable entries are skipped.
pub fn fingerprint(root: &Path) -> u64 {
    let mut hasher = DefaultHasher::new();
    let mut pending: Vec<PathBuf> = vec![root.to_path_buf()];
    let mut seen = 0usize;
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|entry| entry.file_name());
        for entry in entries {
            seen += 1;
            if seen > MAX_ENTRIES {
                return hasher.finish();
            }
            let name = entry.file_name();
            // symlink_metadata: a link is hashed as itself, never followed out of the tree.
            let Ok(meta) = entry.path().symlink_metadata() else { continue };
            if meta.is_dir() && LEFT_OUT.iter().any(|left| name == *left) {
                continue;
            }
            entry.path().strip_prefix(root).unwrap_or(&entry.path()).hash(&mut hasher);
            meta.len().hash(&mut hasher);
            let modified = meta.modified().ok().and_then(|t| t.duration_since(UNIX_EPOCH).ok());
            modified.map(|d| d.as_nanos()).hash(&mut hasher);
            if meta.is_dir() {
                pending.push(entry.path());
            }
        }
    }
    hasher.finish()
}

/// The fingerprint, read off the async runtime's threads; `None` without a workspace.
pub async fn fingerprint_of(root: Option<&Path>) -> Option<u64> {
    let root = root?.to_path_buf();
    tokio::task::spawn_blocking(move || fingerprint(&root)).await.ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_a_new_file_or_a_removal_changes_it_and_left_out_folders_do_not() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one").unwrap();
        let start = fingerprint(dir.path());
        assert_eq!(fingerprint(dir.path()), start, "nothing changed");

        std::fs::create_dir_all(dir.path().join("target/debug")).unwrap();
        std::fs::write(dir.path().join("target/debug/out"), "built").unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/index"), "x").unwrap();
        let with_left_out = fingerprint(dir.path());

        std::fs::write(dir.path().join("target/debug/out"), "built again").unwrap();
        std::fs::write(dir.path().join(".git/index"), "yy").unwrap();
        assert_eq!(fingerprint(dir.path()), with_left_out, "build output is not progress");

        std::fs::write(dir.path().join("a.txt"), "one two").unwrap();
        let written = fingerprint(dir.path());
        assert_ne!(written, with_left_out);
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/b.rs"), "").unwrap();
        let added = fingerprint(dir.path());
        assert_ne!(added, written);
        std::fs::remove_file(dir.path().join("src/b.rs")).unwrap();
        assert_ne!(fingerprint(dir.path()), added);
    }

    #[test]
    fn a_missing_workspace_has_a_steady_fingerprint() {
        let missing = Path::new("/nonexistent/preflight-workspace");
        assert_eq!(fingerprint(missing), fingerprint(missing));
    }
}
