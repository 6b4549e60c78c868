//! The checks of what a user gives a chat, shared by creating it (`chats.rs`) and changing
//! it (`chat_edit.rs`): its title and its workspace folder. Each refusal is an
//! `ERR_BAD_REQUEST` that names what to fix.

use std::path::Path;

use crate::lifecycle::error::ApiError;

/// Longest title a user may give a chat.
pub const MAX_TITLE_CHARS: usize = 200;

/// A title trimmed, not blank and not too long.
pub(super) fn checked_title(title: &str) -> Result<String, ApiError> {
    let title = title.trim();
    if title.is_empty() {
        return Err(ApiError::bad_request("a chat needs a title"));
    }
    if title.chars().count() > MAX_TITLE_CHARS {
        return Err(ApiError::bad_request(format!(
            "a title has at most {MAX_TITLE_CHARS} characters"
        )));
    }
    Ok(title.to_owned())
}

/// A workspace must be an existing folder; a relative path is taken from the current one.
/// It may not be a folder whose sharing would hand a chat's tools (the filesystem server,
/// the code sandbox) what no chat may reach: the whole file system, the user's home folder,
/// or the data folder `data_dir` (every chat, the API token) or a folder holding it.
pub(super) fn checked_workspace(workspace: &str, data_dir: &Path) -> Result<String, ApiError> {
    let path = Path::new(workspace.trim());
    if workspace.trim().is_empty() || !path.is_dir() {
        return Err(ApiError::bad_request(format!(
            "workspace {workspace:?} is not an existing folder"
        )));
    }
    let absolute = std::path::absolute(path)
        .map_err(|error| ApiError::bad_request(format!("workspace {workspace:?}: {error}")))?;
    // Collecting the components drops a trailing slash and `.` parts.
    let normal: std::path::PathBuf = absolute.components().collect();
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    if let Some(why) = too_wide(&normal, home.as_deref(), data_dir) {
        return Err(ApiError::bad_request(format!(
            "workspace {workspace:?} is {why}: a chat's tools could then read and change it all; \
             choose a project folder instead"
        )));
    }
    Ok(normal.to_string_lossy().into_owned())
}

/// Why `folder` is too wide to be a workspace, compared as real paths (links resolved).
fn too_wide(folder: &Path, home: Option<&Path>, data_dir: &Path) -> Option<String> {
    let real = |path: &Path| path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    let folder = real(folder);
    let data_dir = real(data_dir);
    if folder == Path::new("/") {
        Some("the root of the file system".to_owned())
    } else if let Some(home) = home.map(real).filter(|home| home.starts_with(&folder)) {
        Some(if home == folder {
            "your home folder".to_owned()
        } else {
            format!("a folder holding your home folder ({})", home.display())
        })
    } else if data_dir.starts_with(&folder) {
        Some(format!("Preflight's data folder or holds it ({})", data_dir.display()))
    } else {
        None
    }
}

pub(super) fn is_git_repository(workspace: &str) -> bool {
    Path::new(workspace).join(".git").exists()
}

/// Most paths a scope may name.
pub const MAX_SCOPE_PATHS: usize = 20;

/// A planning scope (DESIGN §14): folders or files inside the chat's workspace, each given
/// relative to it or as an absolute path under it, kept relative with `/` between parts,
/// sorted and without repeats. `.` (or a list of nothing) means the whole workspace (an
/// empty scope). Links are resolved first, so a path that is a link out of the workspace is
/// refused like a path out of it; a path that does not exist is refused as a typo would be.
pub(super) fn checked_scope(
    scope: &[String],
    workspace: Option<&str>,
) -> Result<Vec<String>, ApiError> {
    if scope.is_empty() {
        return Ok(Vec::new());
    }
    let Some(workspace) = workspace else {
        return Err(ApiError::bad_request("a scope needs a workspace: choose the folder first"));
    };
    if scope.len() > MAX_SCOPE_PATHS {
        return Err(ApiError::bad_request(format!(
            "a scope names at most {MAX_SCOPE_PATHS} folders or files"
        )));
    }
    let root = Path::new(workspace)
        .canonicalize()
        .map_err(|error| ApiError::bad_request(format!("workspace {workspace:?}: {error}")))?;
    let mut checked = Vec::new();
    for given in scope {
        match scope_path(given, &root, workspace)? {
            Some(path) => checked.push(path),
            None => return Ok(Vec::new()),
        }
    }
    checked.sort();
    checked.dedup();
    Ok(checked)
}

/// One path of a scope, relative to the real workspace `root`; `None` for the whole of it.
fn scope_path(given: &str, root: &Path, workspace: &str) -> Result<Option<String>, ApiError> {
    let given = given.trim();
    let outside = || {
        ApiError::bad_request(format!(
            "scope {given:?} is not an existing folder or file inside the workspace {workspace}"
        ))
    };
    if given.is_empty() {
        return Err(outside());
    }
    let path = Path::new(given);
    let joined = if path.is_absolute() { path.to_path_buf() } else { root.join(path) };
    let real = joined.canonicalize().map_err(|_| outside())?;
    let relative = real.strip_prefix(root).map_err(|_| outside())?;
    if relative.as_os_str().is_empty() {
        return Ok(None);
    }
    let parts: Vec<String> =
        relative.components().map(|part| part.as_os_str().to_string_lossy().into_owned()).collect();
    Ok(Some(parts.join("/")))
}
