//! A chat's planning scope at dispatch (DESIGN §14): while planning, a filesystem tool call
//! whose path lies outside the scope is refused before it reaches the server, with words
//! naming the scope. Listing a folder that leads to the scope (the workspace root, say) is
//! allowed, so the planner can find its way in; reading, searching or walking the tree
//! there is not. Execution is not limited by the scope.
//!
//! Paths are judged as the filesystem server resolves them (relative ones from the
//! workspace), by their real location when they exist: a link inside the scope that points
//! out of it is outside.

use std::path::{Component, Path, PathBuf};

use serde_json::Value;

/// Tools that only list a folder's entries: allowed on a folder above the scope.
const LISTING: [&str; 2] = ["list_directory", "list_directory_with_sizes"];

/// The scope of one planner turn, resolved against its workspace.
pub(super) struct PlanningScope {
    workspace: PathBuf,
    /// Real paths of the scope's folders and files.
    roots: Vec<PathBuf>,
    /// The scope as the user gave it, for the refusal's words.
    named: String,
}

impl PlanningScope {
    /// `None` for an empty scope (the whole workspace).
    pub(super) fn new(workspace: &Path, scope: &[String]) -> Option<PlanningScope> {
        if scope.is_empty() {
            return None;
        }
        let workspace = real(workspace);
        let roots = scope.iter().map(|path| real(&workspace.join(path))).collect();
        Some(PlanningScope { workspace, roots, named: scope.join(", ") })
    }

    /// The refusal of filesystem tool `tool` (its bare name, e.g. `read_text_file`) called
    /// with `arguments`, when a path it names lies outside the scope.
    pub(super) fn refusal(&self, tool: &str, arguments: &Value) -> Option<String> {
        let outside = paths_of(arguments).into_iter().find(|path| !self.admits(tool, path))?;
        Some(format!(
            "{outside:?} is outside this chat's planning scope ({}): while planning, read only \
             inside it. The scope is set in the chat's settings; execution is not limited by it.",
            self.named
        ))
    }

    fn admits(&self, tool: &str, path: &str) -> bool {
        let Some(path) = self.resolve(path) else { return false };
        let inside = self.roots.iter().any(|root| path.starts_with(root));
        let leads_in =
            LISTING.contains(&tool) && self.roots.iter().any(|root| root.starts_with(&path));
        inside || leads_in
    }

    /// The real path the server would use; `None` for what it would not take as a path
    /// inside the workspace (`~`, a `..` above the root).
    fn resolve(&self, given: &str) -> Option<PathBuf> {
        if given.starts_with('~') {
            return None;
        }
        let joined = self.workspace.join(given);
        let mut plain = PathBuf::new();
        for part in joined.components() {
            match part {
                Component::ParentDir => {
                    if !plain.pop() {
                        return None;
                    }
                }
                Component::CurDir => {}
                other => plain.push(other),
            }
        }
        Some(real(&plain))
    }
}

/// A path with its links resolved when it exists (its nearest existing folder otherwise).
fn real(path: &Path) -> PathBuf {
    if let Ok(resolved) = path.canonicalize() {
        return resolved;
    }
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if parent != path => real(parent).join(name),
        _ => path.to_path_buf(),
    }
}

/// The paths a filesystem tool call names: `path`, and each of `paths`. A call that names
/// none (or not as text) has nothing to judge here; the server refuses bad arguments.
fn paths_of(arguments: &Value) -> Vec<&str> {
    let mut paths: Vec<&str> = arguments.get("path").and_then(Value::as_str).into_iter().collect();
    if let Some(list) = arguments.get("paths").and_then(Value::as_array) {
        paths.extend(list.iter().filter_map(Value::as_str));
    }
    paths
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn reads_outside_the_scope_are_refused_and_listing_the_way_in_is_not() {
        let ws = tempfile::tempdir().unwrap();
        let root = ws.path();
        std::fs::create_dir_all(root.join("src/api")).unwrap();
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::write(root.join("src/api/routes.rs"), "").unwrap();
        std::fs::write(root.join("secret.txt"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink(root.join("secret.txt"), root.join("src/api/link")).unwrap();
        let scope = PlanningScope::new(root, &["src/api".into(), "docs".into()]).unwrap();
        let read = |path: &str| scope.refusal("read_text_file", &json!({ "path": path }));
        assert_eq!(read("src/api/routes.rs"), None);
        assert_eq!(
            read(&root.join("docs/new.md").to_string_lossy()),
            None,
            "absolute, not yet there"
        );
        assert_eq!(read("src/api/../api/routes.rs"), None);
        let refusal = read("secret.txt").expect("outside");
        assert!(refusal
            .contains("\"secret.txt\" is outside this chat's planning scope (src/api, docs)"));
        assert!(read("src/api/../../secret.txt").is_some());
        assert!(read("../../etc/passwd").is_some());
        assert!(read("~/.ssh/id_ed25519").is_some());
        #[cfg(unix)]
        assert!(read("src/api/link").is_some(), "a link out of the scope is outside");
        let many = json!({ "paths": ["src/api/routes.rs", "secret.txt"] });
        assert!(scope.refusal("read_multiple_files", &many).is_some());
        assert_eq!(scope.refusal("list_directory", &json!({ "path": "." })), None, "the way in");
        assert_eq!(scope.refusal("list_directory", &json!({ "path": "src" })), None);
        assert!(scope.refusal("directory_tree", &json!({ "path": "." })).is_some());
        assert!(scope.refusal("search_files", &json!({ "path": "src", "pattern": "x" })).is_some());
        assert!(PlanningScope::new(root, &[]).is_none(), "no scope: the whole workspace");
    }
}
