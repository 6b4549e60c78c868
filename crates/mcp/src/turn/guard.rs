//! Writes the filesystem server is never sent, refused at dispatch in every profile: into any
//! `.git` of the workspace, at any depth and in any case (a hook, or `core.fsmonitor` in a
//! config, would run unconfined at the user's next `git status` or commit; a submodule's
//! `lib/.git` replaced by a planted repository is one), into `.sandbox/` (the code sandbox's
//! venv and state: its interpreter runs every command) and into `.dwp/` (the plan folder at
//! the root, which only the engine writes). The code sandbox holds `.git` read-only on its
//! side (preflight-sandbox's `confine.rs`); this is the same rule for the other writer.
//!
//! A path counts where it really lands: relative paths are taken from the workspace, `..`
//! parts are applied, and links on the way (a link the sandbox planted pointing into `.git`)
//! are followed as far as the path exists. The path as written counts too, with its `..`
//! applied: a `lib/.git` that is a link elsewhere is still where git looks.
//! `.github`, `.gitignore`, `.gitmodules` and `x.git` are other names, and stay writable.

use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};

use rmcp::model::JsonObject;

use crate::classify::ServerClass;

/// The filesystem server's tools that change files.
const WRITE_TOOLS: [&str; 4] = ["write_file", "edit_file", "create_directory", "move_file"];
/// Their arguments that name a path (`move_file` has two: both count).
const PATH_ARGUMENTS: [&str; 3] = ["path", "source", "destination"];
/// The folder name no tool of a chat writes into, wherever it is in the workspace.
const GIT: &str = ".git";
/// The workspace's top-level folders no tool of a chat writes into.
pub const PROTECTED: [&str; 3] = [GIT, ".sandbox", ".dwp"];

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
            match folder {
                GIT => "git, whose hooks and configuration run outside the sandbox",
                ".dwp" => "Preflight's plan folder, which only Preflight writes",
                _ => "the code sandbox",
            }
        ))
    })
}

/// The protected folder of `workspace` (canonical) that `path` lands in, if any: judged
/// where it really lands, and as written.
fn protected_folder(workspace: &Path, path: &str) -> Option<&'static str> {
    let written = normalised(&workspace.join(path));
    [real_path(&written), written].iter().find_map(|landed| {
        let inside = landed.strip_prefix(workspace).ok()?;
        protected_in(inside)
    })
}

/// The protected folder `inside` (relative to the workspace) names: a `.git` component
/// anywhere, or a protected top-level folder; names compared without case, as a
/// case-insensitive file system (or git's own checks) would.
fn protected_in(inside: &Path) -> Option<&'static str> {
    let is = |part: &OsStr, name: &str| part.to_str().is_some_and(|p| p.eq_ignore_ascii_case(name));
    let first = inside.components().next()?.as_os_str();
    if let Some(top) = PROTECTED.into_iter().find(|name| is(first, name)) {
        return Some(top);
    }
    inside.components().any(|part| is(part.as_os_str(), GIT)).then_some(GIT)
}

/// `path` with `.` parts dropped and `..` parts applied to the parts before them.
fn normalised(path: &Path) -> PathBuf {
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
    normal
}

/// `path` (normalised) with links resolved along its longest existing ancestor.
fn real_path(normal: &Path) -> PathBuf {
    let mut rest = Vec::new();
    let mut existing = normal;
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |path: PathBuf, part| path.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return normal.to_path_buf(),
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

    /// A workspace with a top-level `.git`, a submodule whose `lib/.git` is a file, and a
    /// link `src/hooks` into `.git/hooks`; dropped with the guard.
    fn workspace() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(ws.join("lib")).unwrap();
        std::fs::write(ws.join("lib/.git"), "gitdir: ../.git/modules/lib\n").unwrap();
        std::os::unix::fs::symlink(ws.join(".git/hooks"), ws.join("src/hooks")).unwrap();
        (dir, ws)
    }

    #[test]
    fn writes_into_any_git_the_sandbox_and_the_plan_folder_are_refused_however_spelled() {
        let (_dir, ws) = workspace();
        let hook = ws.join(".git/hooks/pre-commit").display().to_string();
        let table: &[(&str, serde_json::Value, &str)] = &[
            ("write_file", json!({"path": hook, "content": "x"}), ".git"),
            ("edit_file", json!({"path": ".git/config", "edits": []}), ".git"),
            ("write_file", json!({"path": "src/../.git/config"}), ".git"),
            ("write_file", json!({"path": "src/hooks/post-checkout"}), ".git"),
            ("create_directory", json!({"path": ".git"}), ".git"),
            ("move_file", json!({"source": "a.sh", "destination": ".git/hooks/x"}), ".git"),
            ("move_file", json!({"source": ".git/config", "destination": "c"}), ".git"),
            // The finding: a submodule's `.git` moved away, then a planted one written.
            ("move_file", json!({"source": "lib/.git", "destination": "lib/x"}), ".git"),
            ("move_file", json!({"source": "lib/x", "destination": "lib/.git"}), ".git"),
            ("write_file", json!({"path": "lib/.git/config", "content": "x"}), ".git"),
            ("create_directory", json!({"path": "vendor/deep/er/.git/hooks"}), ".git"),
            ("write_file", json!({"path": "lib/.GIT/config"}), ".git"),
            ("write_file", json!({"path": ".Git/HEAD"}), ".git"),
            ("write_file", json!({"path": "./lib/./.git"}), ".git"),
            ("write_file", json!({"path": "src/../lib/.git/hooks/x"}), ".git"),
            ("write_file", json!({"path": ".sandbox/venv/bin/python"}), ".sandbox"),
            ("create_directory", json!({"path": ".SANDBOX"}), ".sandbox"),
            ("write_file", json!({"path": ".dwp/plans/PLAN_x/PLAN.md"}), ".dwp"),
            ("move_file", json!({"source": "notes.md", "destination": ".dwp"}), ".dwp"),
        ];
        let fs = ServerClass::Filesystem;
        for (tool, arguments, folder) in table {
            let why = refused_write(fs, tool, Some(&args(arguments.clone())), Some(&ws));
            let why = why.unwrap_or_else(|| panic!("{tool} {arguments} was let through"));
            assert!(why.contains(&format!("`{folder}`")), "{tool} {arguments}: {why}");
        }
    }

    #[test]
    fn the_refusal_says_why_in_words() {
        let (_dir, ws) = workspace();
        let fs = ServerClass::Filesystem;
        let refusal = |path: &str| {
            let write = args(json!({"path": path}));
            refused_write(fs, "write_file", Some(&write), Some(&ws)).unwrap()
        };
        assert!(refusal("lib/.git/config").contains("hooks and configuration run outside"));
        assert!(refusal(".dwp/x").contains("only Preflight writes"));
        assert!(refusal(".sandbox/x").contains("the code sandbox"));
    }

    #[test]
    fn everything_else_passes() {
        let (_dir, ws) = workspace();
        let fs = ServerClass::Filesystem;
        let passes = |tool: &str, value: serde_json::Value| {
            refused_write(fs, tool, Some(&args(value)), Some(&ws)).is_none()
        };
        for path in [
            "src/.gitignore",
            ".gitignore",
            ".gitmodules",
            ".github/workflows/ci.yml",
            "lib/x.git",
            "lib/.git-backup/config",
            "lib/.gitkeep",
            "docs/.dwp/notes.md",
            "docs/.sandbox/x",
            ".dwpx",
            "lib/.git/../main.c",
        ] {
            assert!(passes("write_file", json!({"path": path, "content": "x"})), "{path}");
        }
        assert!(passes("move_file", json!({"source": "a", "destination": "lib/.gitattributes"})));
        assert!(passes("read_text_file", json!({"path": ".git/config"})));
        let read = args(json!({"path": ".git/config"}));
        assert_eq!(refused_write(ServerClass::Other, "write_file", Some(&read), Some(&ws)), None);
        assert_eq!(refused_write(fs, "write_file", Some(&read), None), None);
    }
}
