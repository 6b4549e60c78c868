//! `git` on the user's own repository or a chat's worktree of it: the one place this crate
//! runs git on something that is not its shadow repository.
//!
//! **Invariant:** git reads the configuration the user's own git reads (the system's, their
//! global one with its ignore file and, say, Git LFS's filters, and the repository's: all the
//! user's, none the chat's code can write), and the settings that could run a program the
//! repository names or hang on the user (hooks, fsmonitor, signing, a pager) are pinned off:
//! a worktree's files are written by the chat's code, and a merge runs nothing they name.
//! Commits carry the user's own name and address (read once from their git configuration),
//! or Preflight's when they have none.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::diff::{diff_between, Budget, Diff};
use crate::git::{outside, run_bounded, trusted_folders, Deadline};
use crate::CheckpointError;

/// How long one worktree operation (an add, a merge's few calls) may take.
pub(crate) const BUDGET: Duration = Duration::from_secs(120);
/// Pinned on every call on the user's repository.
const PINNED: &[&str] = &[
    "core.hooksPath=/dev/null",
    "core.fsmonitor=false",
    "core.quotepath=false",
    "core.pager=cat",
    "gc.auto=0",
    "maintenance.auto=false",
    "commit.gpgsign=false",
    "submodule.recurse=false",
    "diff.external=",
    "color.ui=false",
    "advice.detachedHead=false",
];

/// The author of a commit when the user's git names nobody.
const FALLBACK_NAME: &str = "Preflight";
const FALLBACK_EMAIL: &str = "preflight@localhost.invalid";

/// git run in one folder (`-C`) of the user's repository.
#[derive(Debug, Clone)]
pub(crate) struct RepoGit {
    dir: PathBuf,
    program: PathBuf,
    search_path: OsString,
    index_file: Option<PathBuf>,
}

impl RepoGit {
    /// git in `dir`, found on the PATH outside `dir` and outside `others` (the repository
    /// and the worktree: neither may supply the `git` that runs on it).
    pub(crate) fn new(dir: &Path, others: &[&Path]) -> RepoGit {
        let inherited =
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/local/bin:/usr/bin:/bin".into());
        let real = |path: &Path| std::fs::canonicalize(path).unwrap_or_else(|_| path.to_owned());
        let trees: Vec<PathBuf> =
            std::iter::once(dir).chain(others.iter().copied()).map(real).collect();
        let mut folders = trusted_folders(&inherited, &trees[0]);
        folders.retain(|folder| trees.iter().all(|tree| !folder.starts_with(tree)));
        let program = folders.iter().find_map(|folder| {
            trees.iter().try_fold(folder.join("git"), |git, tree| outside(&git, tree))
        });
        RepoGit {
            dir: dir.to_owned(),
            program: program.unwrap_or_else(|| PathBuf::from("/nonexistent/git")),
            search_path: std::env::join_paths(folders).unwrap_or_default(),
            index_file: None,
        }
    }

    /// The same folder with a scratch index (the worktree's own index untouched).
    pub(crate) fn with_index(&self, index_file: PathBuf) -> RepoGit {
        RepoGit { index_file: Some(index_file), ..self.clone() }
    }

    /// Runs `git args…` and returns its stdout.
    pub(crate) fn output(&self, args: &[&str]) -> Result<Vec<u8>, CheckpointError> {
        self.output_with(args, &[])
    }

    /// Runs `git args…` with `env` added (an identity) and returns its stdout.
    pub(crate) fn output_with(
        &self,
        args: &[&str],
        env: &[(&str, String)],
    ) -> Result<Vec<u8>, CheckpointError> {
        let mut stdout = Vec::new();
        let mut command = self.command(args);
        command.envs(env.iter().map(|(key, value)| (*key, value)));
        let label = format!("git {}", args.join(" "));
        run_bounded(command, &label, b"", Deadline::after(BUDGET), &mut |chunk| {
            stdout.extend_from_slice(chunk)
        })?;
        Ok(stdout)
    }

    /// Like `output`, but a failing call still gives what it printed (`git merge-tree`
    /// prints its tree and the conflicted files, and exits 1).
    pub(crate) fn output_even_failing(
        &self,
        args: &[&str],
    ) -> (Vec<u8>, Result<(), CheckpointError>) {
        let mut stdout = Vec::new();
        let label = format!("git {}", args.join(" "));
        let done =
            run_bounded(self.command(args), &label, b"", Deadline::after(BUDGET), &mut |chunk| {
                stdout.extend_from_slice(chunk)
            });
        (stdout, done)
    }

    /// The diff from commit (or tree) `from` to `to`, within `max_diff_bytes` (a quarter of
    /// it for one file's patch), by the diff code the shadow repository's diffs use; the
    /// patch streamed a line at a time.
    pub(crate) fn diff(
        &self,
        [from, to]: [&str; 2],
        max_diff_bytes: usize,
    ) -> Result<Diff, CheckpointError> {
        let budget = Budget { max_patch_bytes: max_diff_bytes / 4, max_diff_bytes };
        diff_between(
            &mut |args| self.output(args),
            &mut |args, sink| {
                let label = format!("git {}", args.join(" "));
                run_bounded(self.command(args), &label, b"", Deadline::after(BUDGET), sink)
            },
            [from, to],
            budget,
        )
    }

    /// Runs `git args…`; its one line of output, trimmed.
    pub(crate) fn line(&self, args: &[&str]) -> Result<String, CheckpointError> {
        let out = self.output(args)?;
        Ok(String::from_utf8_lossy(&out).trim().to_owned())
    }

    /// Whether `git args…` succeeds (a question git answers by its exit status).
    pub(crate) fn succeeds(&self, args: &[&str]) -> Result<bool, CheckpointError> {
        match self.output(args) {
            Ok(_) => Ok(true),
            Err(CheckpointError::Git { .. }) => Ok(false),
            Err(error) => Err(error),
        }
    }

    /// The author and committer of the commits Preflight makes for the user: their own git
    /// identity (their configuration read as their git reads it), else Preflight's.
    pub(crate) fn identity(&self) -> Vec<(&'static str, String)> {
        let ask = |key: &str| {
            let out = Command::new(&self.program)
                .args(["config", "--get", key])
                .current_dir(&self.dir)
                .env("GIT_TERMINAL_PROMPT", "0")
                .output()
                .ok()?;
            let value = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            (out.status.success() && !value.is_empty()).then_some(value)
        };
        let name = ask("user.name").unwrap_or_else(|| FALLBACK_NAME.to_owned());
        let email = ask("user.email").unwrap_or_else(|| FALLBACK_EMAIL.to_owned());
        vec![
            ("GIT_AUTHOR_NAME", name.clone()),
            ("GIT_AUTHOR_EMAIL", email.clone()),
            ("GIT_COMMITTER_NAME", name),
            ("GIT_COMMITTER_EMAIL", email),
        ]
    }

    fn command(&self, args: &[&str]) -> Command {
        let mut command = Command::new(&self.program);
        command.env_clear().env("PATH", &self.search_path).env("LC_ALL", "C");
        if let Some(home) = std::env::var_os("HOME") {
            command.env("HOME", home);
        }
        if let Some(config) = std::env::var_os("XDG_CONFIG_HOME") {
            command.env("XDG_CONFIG_HOME", config);
        }
        command
            .env("GIT_NO_REPLACE_OBJECTS", "1")
            .env("GIT_TERMINAL_PROMPT", "0")
            .env("GIT_OPTIONAL_LOCKS", "0");
        if let Some(index) = &self.index_file {
            command.env("GIT_INDEX_FILE", index);
        }
        command.arg("-C").arg(&self.dir);
        for setting in PINNED {
            command.args(["-c", setting]);
        }
        command.args(args).current_dir(&self.dir);
        command
    }
}
