//! Writes the filesystem server is never sent, refused at dispatch in every profile: into the
//! workspace's `.git` (a hook, or `core.fsmonitor` in its config, would run unconfined at the
//! user's next `git status` or commit) and into `.sandbox/` (the code sandbox's venv and
//! state: its interpreter runs every command). The code sandbox holds `.git` read-only on
//! its side (preflight-sandbox's `confine.rs`); this is the same rule for the other writer.
//!
//! A path counts where it really lands: relative paths are taken from the workspace, `..`
//! parts are applied, and links on the way (a link the sandbox planted pointing into `.git`)
//! are followed as far as the path exists.

use std::path::{Component, Path, PathBuf};

use rmcp::model::JsonObject;

use crate::mcp::classify::ServerClass;

/// The filesystem server's tools that change files.
const WRITE_TOOLS: [&str; 4] = ["write_file", "edit_file", "create_directory", "move_file"];
/// Their arguments that name a path (`move_file` has two: both count).
const PATH_ARGUMENTS: [&str; 3] = ["path", "source", "destination"];
/// The workspace's folders no tool of a chat writes into.
pub const PROTECTED: [&str; 2] = [".git", ".sandbox"];

/// Why `tool` of a server of `class` may not be called with `arguments` in `workspace`, or
/// `None` when it may.
pub(crate) fn refused_write(
    class: ServerClass,
    tool: &str,
    arguments: Option<&JsonObject>,
    workspace: Option<&Path>,
) -> Option<String> {
    if class != ServerClass::Filesystem || !WRITE_TOOLS.contains(&tool) {
        return None;
    }
    let (workspace, arguments) = (workspace?, arguments?);
    let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
    PATH_ARGUMENTS.iter().find_map(|key| {
        let path = arguments.get(*key)?.as_str()?;
        let folder = protected_folder(&workspace, path)?;
        Some(format!(
            "`{tool}` may not write into the workspace's `{folder}` ({path}): it belongs to \
             {}; change files elsewhere in the workspace",
            if folder == ".git" {
                "git, whose hooks run outside the sandbox"
            } else {
                "the code sandbox"
            }
        ))
    })
}

/// The protected folder of `workspace` (canonical) that `path` lands in, if any.
fn protected_folder(workspace: &Path, path: &str) -> Option<&'static str> {
    let landed = real_path(&workspace.join(path));
    let inside = landed.strip_prefix(workspace).ok()?;
    let first = inside.components().next()?;
    PROTECTED.into_iter().find(|name| first.as_os_str() == *name)
}

/// `path` with `..` applied and links resolved along its longest existing ancestor.
fn real_path(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    let mut rest = Vec::new();
    let mut existing = normal.as_path();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path: PathBuf, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return normal,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(value: serde_json::Value) -> JsonObject {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn writes_into_git_and_the_sandbox_are_refused_however_they_are_spelled() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::os::unix::fs::symlink(ws.join(".git/hooks"), ws.join("src/hooks")).unwrap();
        let fs = ServerClass::Filesystem;
        let refused = |tool: &str, value: serde_json::Value| {
            refused_write(fs, tool, Some(&args(value)), Some(&ws)).is_some()
        };
        let hook = ws.join(".git/hooks/pre-commit").display().to_string();
        assert!(refused("write_file", json!({"path": hook, "content": "x"})));
        assert!(refused("edit_file", json!({"path": ".git/config", "edits": []})));
        assert!(refused("write_file", json!({"path": "src/../.git/config"})));
        assert!(refused("write_file", json!({"path": "src/hooks/post-checkout"})), "a link");
        assert!(refused("create_directory", json!({"path": ".git"})));
        assert!(refused("move_file", json!({"source": "a.sh", "destination": ".git/hooks/x"})));
        assert!(refused("move_file", json!({"source": ".git/config", "destination": "c"})));
        assert!(refused("write_file", json!({"path": ".sandbox/venv/bin/python"})));
        let message =
            refused_write(fs, "write_file", Some(&args(json!({"path": ".git/config"}))), Some(&ws));
        assert!(message.unwrap().contains("hooks run outside the sandbox"));
    }

    #[test]
    fn everything_else_passes() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        let fs = ServerClass::Filesystem;
        let write = args(json!({"path": "src/.gitignore", "content": "x"}));
        assert_eq!(refused_write(fs, "write_file", Some(&write), Some(&ws)), None);
        let named = args(json!({"path": ".github/workflows/ci.yml"}));
        assert_eq!(refused_write(fs, "write_file", Some(&named), Some(&ws)), None);
        let read = args(json!({"path": ".git/config"}));
        assert_eq!(refused_write(fs, "read_text_file", Some(&read), Some(&ws)), None);
        let other = ServerClass::Other;
        assert_eq!(refused_write(other, "write_file", Some(&read), Some(&ws)), None);
        assert_eq!(refused_write(fs, "write_file", Some(&read), None), None);
    }
}
