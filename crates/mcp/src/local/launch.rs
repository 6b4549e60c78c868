//! How an entry's command line becomes a process without trusting the workspace (a cloned
//! repository) or leaking this process's secrets (issue 14).
//!
//! - **Environment:** a server gets [`ALLOWED_ENV`] of this process's environment (what the
//!   MCP SDKs pass: the TypeScript SDK's `getDefaultEnvironment`, plus the locale and the
//!   temp folder), then the embedder's [`McpOptions::inherited_env`] changes, then the entry's
//!   own `env`. Provider keys and everything else stay here.
//! - **Program:** resolved to an absolute path before the spawn. A bare name is looked up in
//!   the `PATH` of that environment, skipping relative folders (`.`, an empty entry) and
//!   folders inside the workspace, compared as real paths (a link naming the workspace by
//!   another spelling is inside, and so is a program that is a link into it); a relative
//!   path with a `/` is refused. The spawn never searches `PATH` itself, so an entry's own
//!   `PATH` cannot point it into the workspace.
//! - **Working folder:** the data folder, never the workspace, so `npx`, `uvx` and
//!   interpreters (which look for local packages, configuration and modules in their working
//!   folder) cannot pick up the repository's code.
//!
//! [`McpOptions::inherited_env`]: crate::McpOptions::inherited_env

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{ServerEntry, WORKSPACE_VAR};
use crate::error::McpError;

/// The variables of this process's environment a server inherits.
pub const ALLOWED_ENV: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR"];

/// What every server starts from: the environment and the working folder.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseEnvironment {
    pub vars: Vec<(OsString, OsString)>,
    pub working_dir: PathBuf,
}

impl BaseEnvironment {
    /// Read once from this process when the host starts: the embedder's `inherited_env`
    /// changes, and the data folder as the working folder.
    pub(crate) fn of_this_process(
        inherited_env: &[(String, Option<OsString>)],
        working_dir: &Path,
    ) -> BaseEnvironment {
        BaseEnvironment::from_vars(std::env::vars_os(), inherited_env, working_dir)
    }

    /// [`ALLOWED_ENV`] of `vars`, then the changes of `inherited_env`.
    pub(crate) fn from_vars(
        vars: impl Iterator<Item = (OsString, OsString)>,
        inherited_env: &[(String, Option<OsString>)],
        working_dir: &Path,
    ) -> BaseEnvironment {
        let mut kept: Vec<(OsString, OsString)> =
            vars.filter(|(name, _)| ALLOWED_ENV.iter().any(|allowed| name == allowed)).collect();
        for (name, value) in inherited_env {
            kept.retain(|(kept_name, _)| kept_name != name.as_str());
            if let Some(value) = value {
                kept.push((name.into(), value.clone()));
            }
        }
        BaseEnvironment { vars: kept, working_dir: working_dir.to_path_buf() }
    }

    fn search_path(&self) -> Vec<PathBuf> {
        let path = self.vars.iter().find(|(name, _)| name == "PATH").map(|(_, value)| value);
        path.map(|value| std::env::split_paths(value).filter(|dir| dir.is_absolute()).collect())
            .unwrap_or_default()
    }
}

/// A server's command line with `${workspace}` filled in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launch {
    /// As configured: resolved to an absolute path only when spawned.
    pub program: String,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
    /// The workspace, for servers that use it (its folders are never searched for programs).
    pub workspace: Option<PathBuf>,
    /// The environment and working folder every server starts from; `env` comes after it.
    pub base: Arc<BaseEnvironment>,
}

impl ServerEntry {
    /// The command line for a chat in `workspace`; `None` when the server needs a workspace
    /// and the chat has none.
    pub fn launch(&self, workspace: Option<&Path>) -> Option<Launch> {
        let workspace = match (self.uses_workspace(), workspace) {
            (false, _) => None,
            (true, None) => return None,
            (true, Some(folder)) => Some(folder.to_path_buf()),
        };
        let folder =
            workspace.as_deref().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        Some(Launch {
            program: self.command.clone(),
            args: self.args.iter().map(|arg| arg.replace(WORKSPACE_VAR, &folder)).collect(),
            env: self.env.clone(),
            workspace,
            base: Arc::default(),
        })
    }
}

/// Makes the `changes` of [`McpOptions::inherited_env`] to what `command` inherits: a value
/// sets a variable, `None` removes it.
pub fn apply_inherited_env(
    command: &mut std::process::Command,
    changes: &[(String, Option<OsString>)],
) {
    for (name, value) in changes {
        match value {
            Some(value) => command.env(name, value),
            None => command.env_remove(name),
        };
    }
}

/// The absolute path of `program` for `server`: a bare name from `base`'s `PATH` (never a
/// relative folder, never one inside `workspace`, never a program that really is in it),
/// an absolute path as it is.
pub(crate) fn resolve_program(
    server: &str,
    program: &str,
    base: &BaseEnvironment,
    workspace: Option<&Path>,
) -> Result<PathBuf, McpError> {
    let refuse = |message: String| McpError::Spawn { server: server.to_owned(), message };
    if program.contains('/') {
        let path = PathBuf::from(program);
        if !path.is_absolute() {
            return Err(refuse(format!(
                "`{program}` is a relative path; give an absolute path, or a bare name found in PATH"
            )));
        }
        return Ok(path);
    }
    // Compared as real paths: a `PATH` folder that names the workspace through a link (or
    // the workspace given through one), or a program that is a link into it, is inside.
    let workspace = workspace.map(real_path);
    let inside = |path: &Path| workspace.as_ref().is_some_and(|ws| real_path(path).starts_with(ws));
    base.search_path()
        .into_iter()
        .filter(|dir| !inside(dir))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable_file(candidate) && !inside(candidate))
        .ok_or_else(|| {
            refuse(format!(
                "`{program}` was not found in PATH (only absolute folders outside the workspace are searched); install it or give its absolute path in mcp.json"
            ))
        })
}

/// `path` with its links resolved, or as it is when it does not exist.
fn real_path(path: &Path) -> PathBuf {
    path.canonicalize().unwrap_or_else(|_| path.to_path_buf())
}

fn is_executable_file(path: &Path) -> bool {
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base(vars: &[(&str, &str)], changes: Vec<(String, Option<OsString>)>) -> BaseEnvironment {
        let vars = vars.iter().map(|(k, v)| (OsString::from(k), OsString::from(v)));
        BaseEnvironment::from_vars(
            vars.collect::<Vec<_>>().into_iter(),
            &changes,
            Path::new("/data"),
        )
    }

    #[test]
    fn the_environment_is_the_allowlist_then_the_embedders_changes() {
        let got = base(
            &[("PATH", "/bin"), ("OPENAI_API_KEY", "sk"), ("HOME", "/h"), ("TERM", "xterm")],
            vec![("LD_LIBRARY_PATH".into(), Some("/l".into())), ("TERM".into(), None)],
        );
        let names: Vec<&str> = got.vars.iter().map(|(k, _)| k.to_str().unwrap()).collect();
        assert_eq!(names, ["PATH", "HOME", "LD_LIBRARY_PATH"]);
        assert_eq!(got.working_dir, Path::new("/data"));
    }

    #[test]
    fn programs_resolve_in_absolute_path_folders_outside_the_workspace() {
        let bin = tempfile::tempdir().unwrap();
        let ws = tempfile::tempdir().unwrap();
        for dir in [bin.path(), ws.path()] {
            let tool = dir.join("tool");
            std::fs::write(&tool, "#!/bin/sh\n").unwrap();
            std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let path = format!(".::{}:{}", ws.path().display(), bin.path().display());
        let env = base(&[("PATH", &path)], Vec::new());
        let got = resolve_program("s", "tool", &env, Some(ws.path())).unwrap();
        assert_eq!(got, bin.path().join("tool"));
        let error = resolve_program("s", "absent", &env, None).unwrap_err().to_string();
        assert!(error.contains("`absent` was not found in PATH"), "{error}");
        let error = resolve_program("s", "bin/tool", &env, None).unwrap_err().to_string();
        assert!(error.contains("`bin/tool` is a relative path"), "{error}");
        assert_eq!(resolve_program("s", "/x/y", &env, None).unwrap(), Path::new("/x/y"));
    }

    #[test]
    fn the_workspace_is_judged_by_its_real_path_whatever_spells_it() {
        let ws = tempfile::tempdir().unwrap();
        let tool = ws.path().join("tool");
        std::fs::write(&tool, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&tool, std::fs::Permissions::from_mode(0o755)).unwrap();
        let links = tempfile::tempdir().unwrap();
        let alias = links.path().join("alias");
        std::os::unix::fs::symlink(ws.path(), &alias).unwrap();
        std::fs::create_dir(links.path().join("bin")).unwrap();
        std::os::unix::fs::symlink(&tool, links.path().join("bin/tool")).unwrap();
        let spellings = [
            (alias.display().to_string(), ws.path().to_path_buf()),
            (ws.path().display().to_string(), alias.clone()),
            (links.path().join("bin").display().to_string(), ws.path().to_path_buf()),
        ];
        for (path, workspace) in spellings {
            let env = base(&[("PATH", &path)], Vec::new());
            let found = resolve_program("s", "tool", &env, Some(&workspace));
            assert!(found.is_err(), "PATH {path}, workspace {}: {found:?}", workspace.display());
        }
    }
}
