//! The shadow repository itself: where it is, how it is created, its limits, which commits
//! it keeps, and how kept checkpoints are let go.
//!
//! **Invariant:** the repository lives outside the work tree (in Preflight's data folder),
//! readable by its owner alone; the work tree only ever gets files written back by a restore.

use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::commit::CommitId;
use crate::error::CheckpointError;
use crate::git::{Deadline, Git};
use crate::raw::batch_objects;

/// What is never kept, whatever the workspace's `.gitignore` says: any `.git` (the user's
/// repository, a nested one's, a worktree's `.git` file) and Preflight's own folders in the
/// workspace (the sandbox's state, the plan folder's working files). Then the caches and
/// installed packages that tools make and nobody writes by hand (Python's bytecode, test and
/// type-check caches, virtual environments, npm's packages): left out as if `.gitignore`
/// named them, so a task's diff is the work, not what its checks left behind; a workspace's
/// `.gitignore` that un-ignores one (`!node_modules/`) ranks above this file and wins.
/// Build output folders (`target/`, `build/`, `dist/`) are not named: in some projects they
/// hold sources.
const EXCLUDE: &str = "\
# Written by Preflight: never kept in a checkpoint.
.git
.sandbox/
.dwp/
# Caches and installed packages, unless the workspace's .gitignore un-ignores them.
__pycache__/
*.py[cod]
.pytest_cache/
.mypy_cache/
.ruff_cache/
.tox/
.venv/
node_modules/
";

/// Highest-precedence attributes: files are kept byte for byte (no filter, no end-of-line
/// conversion, no ident, no encoding) and diffed by their content alone, whatever the
/// workspace's `.gitattributes` ask for.
const ATTRIBUTES: &str = "\
# Written by Preflight: files kept byte for byte, whatever .gitattributes say.
* -text -filter -ident -working-tree-encoding !eol !diff !merge
";

/// The last line of every checkpoint's message: the folder it was taken of (its real path's
/// bytes in hexadecimal, so that any name reads back exactly).
pub(crate) const FOLDER_TRAILER: &str = "Preflight-Folder: ";

/// In the git folder: the folder of the checkpoints taken before each one named its own (the
/// work tree when this file was first written), and the folder the shadow index is of.
const LEGACY_FOLDER_FILE: &str = "preflight-legacy-folder";
pub(crate) const INDEX_FOLDER_FILE: &str = "preflight-index-folder";

/// How much a checkpoint may hold and how long an operation may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// A file larger than this is left out of a checkpoint (and reported).
    pub max_file_bytes: u64,
    /// A checkpoint adds at most this much new content; the files past it are left out
    /// (and reported) and come in with a later checkpoint.
    pub max_checkpoint_bytes: u64,
    /// An operation's git calls together; past it the running call is killed.
    pub time_budget: Duration,
    /// A file's patch longer than this is not returned (`FileDiff::too_large`).
    pub max_patch_bytes: usize,
    /// A diff returns at most this many bytes in all (file entries and patches); what is past
    /// it is left out and counted (`Diff::truncated`).
    pub max_diff_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_file_bytes: 5 * 1024 * 1024,
            max_checkpoint_bytes: 100 * 1024 * 1024,
            time_budget: Duration::from_secs(15),
            max_patch_bytes: 256 * 1024,
            max_diff_bytes: 4 * 1024 * 1024,
        }
    }
}

/// A workspace folder's checkpoints, kept in a git repository of their own.
#[derive(Debug, Clone)]
pub struct ShadowRepo {
    pub(crate) git: Git,
    pub(crate) git_dir: PathBuf,
    pub(crate) work_tree: PathBuf,
    pub(crate) limits: Limits,
}

impl ShadowRepo {
    /// Opens the shadow repository at `git_dir` for checkpoints of `work_tree`, creating it
    /// (and its missing parents, owner-only) when absent. Cheap when it exists.
    pub fn open(
        git_dir: &Path,
        work_tree: &Path,
        limits: Limits,
    ) -> Result<ShadowRepo, CheckpointError> {
        let work_tree =
            fs::canonicalize(work_tree).map_err(|e| CheckpointError::io(work_tree, e))?;
        if !work_tree.is_dir() {
            let error = std::io::Error::other("the workspace is not a folder");
            return Err(CheckpointError::io(work_tree, error));
        }
        // Checked before anything is created: a refused repository leaves no folder behind.
        let git_dir = resolved(git_dir).map_err(|e| CheckpointError::io(git_dir, e))?;
        if work_tree.starts_with(&git_dir) || git_dir.starts_with(&work_tree) {
            let error =
                std::io::Error::other("the shadow repository must be outside the workspace");
            return Err(CheckpointError::io(git_dir, error));
        }
        preflight_files::create_private_dir(&git_dir)?;
        let git = Git::new(&git_dir, &work_tree);
        let repo = ShadowRepo { git, git_dir, work_tree, limits };
        repo.create_when_absent()?;
        Ok(repo)
    }

    /// The folder whose checkpoints this repository keeps (as resolved at `open`).
    pub fn work_tree(&self) -> &Path {
        &self.work_tree
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Lets the checkpoints `commits` go: their refs are deleted and everything no other
    /// checkpoint holds is pruned from disk (`git gc --prune=now`). An unknown but well-formed
    /// commit is no error. Must not run beside a snapshot of the same repository.
    pub fn forget(&self, commits: &[&str]) -> Result<(), CheckpointError> {
        let commits: Vec<CommitId> =
            commits.iter().map(|text| CommitId::parse(text)).collect::<Result<_, _>>()?;
        let deadline = self.deadline();
        let deletions: String =
            commits.iter().map(|commit| format!("delete {}\n", commit.ref_name())).collect();
        self.git.output(&["update-ref", "--stdin"], deletions.as_bytes(), deadline)?;
        self.git.output(&["gc", "--prune=now", "--quiet"], b"", deadline)?;
        Ok(())
    }

    /// Bytes the repository takes on disk (allocated blocks, as `du` counts them).
    pub fn disk_usage(&self) -> u64 {
        disk_usage_of(&self.git_dir)
    }

    pub(crate) fn deadline(&self) -> Deadline {
        Deadline::after(self.limits.time_budget)
    }

    /// The caller's commit strings, checked: well-formed and commits of this repository.
    pub(crate) fn known_commits(
        &self,
        commits: &[&str],
        deadline: Deadline,
    ) -> Result<Vec<CommitId>, CheckpointError> {
        let commits: Vec<CommitId> =
            commits.iter().map(|text| CommitId::parse(text)).collect::<Result<_, _>>()?;
        let query: String = commits.iter().map(|commit| format!("{}\n", commit.as_str())).collect();
        let answer = self.git.output(&["cat-file", "--batch-check"], query.as_bytes(), deadline)?;
        let answer = String::from_utf8_lossy(&answer);
        let mut lines = answer.lines();
        for commit in &commits {
            // `<name> commit <size>`, or `<name> missing` (or another type).
            let kind = lines.next().and_then(|line| line.split(' ').nth(1));
            if kind != Some("commit") {
                return Err(CheckpointError::NotFound { commit: commit.as_str().to_owned() });
            }
        }
        Ok(commits)
    }

    /// The caller's commit strings, checked as `known_commits` does, and each a checkpoint of
    /// this work tree: a checkpoint of another folder (the chat's workspace moved) is
    /// `OtherFolder`, so it is never restored into, or compared against, this one.
    pub(crate) fn commits_of_this_folder(
        &self,
        commits: &[&str],
        deadline: Deadline,
    ) -> Result<Vec<CommitId>, CheckpointError> {
        let commits = self.known_commits(commits, deadline)?;
        let query: String = commits.iter().map(|commit| format!("{}\n", commit.as_str())).collect();
        let answer = self.git.output(&["cat-file", "--batch"], query.as_bytes(), deadline)?;
        let objects = batch_objects(&answer).ok_or_else(|| CheckpointError::Git {
            command: "git cat-file --batch".into(),
            stderr: "its output could not be read".into(),
        })?;
        let here = folder_record(&self.work_tree);
        for (commit, (_, text)) in commits.iter().zip(objects) {
            let folder = match recorded_folder(&text) {
                Some(folder) => folder,
                None => self.legacy_folder(),
            };
            if folder != here {
                return Err(CheckpointError::OtherFolder {
                    commit: commit.as_str().to_owned(),
                    folder: folder_path(&folder),
                    work_tree: self.work_tree.clone(),
                });
            }
        }
        Ok(commits)
    }

    /// The folder of the checkpoints that name none (taken before they did): the work tree
    /// as it was when this repository was first opened since. Unreadable, it matches none.
    fn legacy_folder(&self) -> String {
        fs::read_to_string(self.git_dir.join(LEGACY_FOLDER_FILE)).unwrap_or_default()
    }

    fn create_when_absent(&self) -> Result<(), CheckpointError> {
        if !self.git_dir.join("HEAD").is_file() {
            self.git.init_bare(self.deadline())?;
        }
        let info = self.git_dir.join("info");
        fs::create_dir_all(&info).map_err(|error| CheckpointError::io(&info, error))?;
        write_when_different(&info.join("exclude"), EXCLUDE)?;
        write_when_different(&info.join("attributes"), ATTRIBUTES)?;
        let legacy = self.git_dir.join(LEGACY_FOLDER_FILE);
        if !legacy.exists() {
            preflight_files::write_atomic(&legacy, folder_record(&self.work_tree).as_bytes())?;
        }
        Ok(())
    }
}

/// A folder as a checkpoint records it: its path's bytes in hexadecimal.
pub(crate) fn folder_record(folder: &Path) -> String {
    folder.as_os_str().as_bytes().iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The folder a checkpoint's commit names (its message's last line), if it names one.
fn recorded_folder(commit: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(commit);
    let last = text.trim_end().lines().next_back()?;
    last.strip_prefix(FOLDER_TRAILER).map(str::to_owned)
}

/// A recorded folder back as a path (as much of it as decodes, for an error message).
fn folder_path(record: &str) -> PathBuf {
    let bytes: Vec<u8> = (0..record.len() / 2)
        .filter_map(|at| u8::from_str_radix(record.get(2 * at..2 * at + 2)?, 16).ok())
        .collect();
    PathBuf::from(OsStr::from_bytes(&bytes))
}

/// `path` made absolute with its existing part's symlinks resolved, as it will be once
/// created.
fn resolved(path: &Path) -> std::io::Result<PathBuf> {
    let absolute = std::path::absolute(path)?;
    let mut existing = absolute.as_path();
    let mut missing = Vec::new();
    loop {
        if let Ok(real) = fs::canonicalize(existing) {
            return Ok(missing.iter().rev().fold(real, |path, part| path.join(part)));
        }
        let part = existing.file_name().filter(|_| !existing.ends_with(".."));
        let parent = existing.parent();
        match (part, parent) {
            (Some(part), Some(parent)) => {
                missing.push(part.to_owned());
                existing = parent;
            }
            _ => return Err(std::io::Error::other("not a plain path to a folder")),
        }
    }
}

/// Writes `text` to `path` unless it already holds it: an open costs no write.
fn write_when_different(path: &Path, text: &str) -> Result<(), CheckpointError> {
    if fs::read(path).is_ok_and(|bytes| bytes == text.as_bytes()) {
        return Ok(());
    }
    Ok(preflight_files::write_atomic(path, text.as_bytes())?)
}

fn disk_usage_of(dir: &Path) -> u64 {
    let Ok(entries) = fs::read_dir(dir) else { return 0 };
    entries
        .flatten()
        .map(|entry| match entry.metadata() {
            Ok(meta) if meta.is_dir() => meta.blocks() * 512 + disk_usage_of(&entry.path()),
            Ok(meta) => meta.blocks() * 512,
            Err(_) => 0,
        })
        .sum()
}
