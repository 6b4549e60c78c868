//! Where a run may start: a `cwd` relative to the workspace that stays inside it.

use crate::error::SandboxError;
use std::path::{Component, Path, PathBuf};

/// Resolves a tool's `cwd` against the (canonical) workspace. Refuses absolute paths, `..`
/// components and anything whose real path (symbolic links followed) leaves the workspace.
pub fn resolve_cwd(workspace: &Path, cwd: Option<&str>) -> Result<PathBuf, SandboxError> {
    let Some(cwd) = cwd.filter(|c| !c.is_empty() && *c != ".") else {
        return Ok(workspace.to_path_buf());
    };
    let refuse = |reason| SandboxError::CwdRefused { cwd: cwd.to_string(), reason };
    let relative = Path::new(cwd);
    if relative.is_absolute() {
        return Err(refuse("it must be relative to the workspace"));
    }
    if relative.components().any(|c| matches!(c, Component::ParentDir)) {
        return Err(refuse("`..` would leave the workspace"));
    }
    let real = workspace.join(relative).canonicalize().map_err(|_| refuse("no such folder"))?;
    if !real.starts_with(workspace) {
        return Err(refuse("a symbolic link leads out of the workspace"));
    }
    if !real.is_dir() {
        return Err(refuse("it is not a folder"));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inside_is_accepted_and_escapes_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(ws.join("sub/deeper")).unwrap();
        std::fs::write(ws.join("file"), "").unwrap();
        std::os::unix::fs::symlink("/etc", ws.join("out")).unwrap();
        std::os::unix::fs::symlink("sub", ws.join("in")).unwrap();
        let table: &[(Option<&str>, Result<PathBuf, &str>)] = &[
            (None, Ok(ws.clone())),
            (Some("."), Ok(ws.clone())),
            (Some("sub/deeper"), Ok(ws.join("sub/deeper"))),
            (Some("in"), Ok(ws.join("sub"))),
            (Some("../"), Err("`..` would leave the workspace")),
            (Some("sub/../.."), Err("`..` would leave the workspace")),
            (Some("/etc"), Err("it must be relative to the workspace")),
            (Some("out"), Err("a symbolic link leads out of the workspace")),
            (Some("missing"), Err("no such folder")),
            (Some("file"), Err("it is not a folder")),
        ];
        for (cwd, expected) in table {
            match (resolve_cwd(&ws, *cwd), expected) {
                (Ok(got), Ok(want)) => assert_eq!(&got, want, "{cwd:?}"),
                (Err(SandboxError::CwdRefused { reason, .. }), Err(want)) => {
                    assert_eq!(reason, *want, "{cwd:?}")
                }
                (got, _) => panic!("{cwd:?}: {got:?}"),
            }
        }
    }
}
