//! What the hooks are, as the settings screen and `GET /v1/hooks` show them: the hooks that
//! run, the files with an error (which run none), and each workspace with a hooks file and
//! whether the user trusts it.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::event::HookEvent;
use super::file::HookFile;
use super::host::{Hooks, WORKSPACE_HOOKS_FILE};

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HooksView {
    /// The user's own hooks file (`$PREFLIGHT_HOME/hooks.json`), there or not.
    pub file: String,
    /// The hooks that run: the user's, and those of trusted workspaces.
    pub loaded: Vec<LoadedHook>,
    /// Files that run none of their hooks, and why.
    pub errors: Vec<HookFileProblem>,
    /// Workspaces of the chats (and trusted ones) that hold a hooks file, or are trusted.
    pub workspaces: Vec<WorkspaceHooks>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct LoadedHook {
    /// The file it is written in.
    pub file: String,
    pub event: HookEvent,
    /// The matcher as written; empty for every tool.
    pub matcher: String,
    pub command: String,
    pub timeout_s: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct HookFileProblem {
    pub file: String,
    /// What is wrong, with its place in the file.
    pub message: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct WorkspaceHooks {
    /// The workspace as its chats name it.
    pub workspace: String,
    /// Its hooks file, `.preflight/hooks.json`.
    pub file: String,
    /// Whether the file is there.
    pub present: bool,
    /// Whether the user trusts the folder for hooks (only then does its file run).
    pub trusted: bool,
}

impl Hooks {
    /// The view, with `workspaces` (the chats') and the trusted folders as its workspaces.
    pub fn view(&self, workspaces: Vec<PathBuf>) -> HooksView {
        let user = self.user_file();
        let mut view = HooksView {
            file: user.display().to_string(),
            loaded: Vec::new(),
            errors: Vec::new(),
            workspaces: Vec::new(),
        };
        self.add_file(&mut view, &user);
        let canonical = |folder: PathBuf| folder.canonicalize().unwrap_or(folder);
        let mut folders: Vec<PathBuf> = workspaces.into_iter().map(canonical).collect();
        folders.extend(self.trust.list());
        folders.sort();
        folders.dedup();
        for folder in folders {
            let file = folder.join(WORKSPACE_HOOKS_FILE);
            let (present, trusted) = (file.is_file(), self.trust.is_trusted(&folder));
            if !present && !trusted {
                continue;
            }
            if trusted {
                self.add_file(&mut view, &file);
            }
            let (workspace, file) = (folder.display().to_string(), file.display().to_string());
            view.workspaces.push(WorkspaceHooks { workspace, file, present, trusted });
        }
        view
    }

    fn add_file(&self, view: &mut HooksView, path: &Path) {
        match self.read(path).as_ref() {
            Ok(file) => view.loaded.extend(loaded(path, file)),
            Err(error) => view
                .errors
                .push(HookFileProblem { file: error.file.clone(), message: error.what.clone() }),
        }
    }
}

fn loaded(path: &Path, file: &HookFile) -> Vec<LoadedHook> {
    let mut hooks = Vec::new();
    for (event, groups) in &file.events {
        for group in groups {
            hooks.extend(group.commands.iter().map(|command| LoadedHook {
                file: path.display().to_string(),
                event: *event,
                matcher: group.matcher.clone(),
                command: command.command.clone(),
                timeout_s: command.timeout.as_secs(),
            }));
        }
    }
    hooks
}
