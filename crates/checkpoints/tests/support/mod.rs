//! Shared helpers of the checkpoint tests: a temp workspace beside a temp data folder, the
//! workspace's files read as a map, the user's own git run as the user would, and diffs
//! rendered as text for `expect!` snapshots.
#![allow(dead_code)] // each test binary compiles every helper and uses only its own

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

use preflight_checkpoints::{Diff, Limits, ShadowRepo};

/// A workspace folder and a data folder (`PREFLIGHT_HOME`) of its own, both temporary.
pub struct Setup {
    pub workspace: tempfile::TempDir,
    pub home: tempfile::TempDir,
}

impl Setup {
    pub fn new() -> Setup {
        Setup { workspace: tempfile::tempdir().unwrap(), home: tempfile::tempdir().unwrap() }
    }

    pub fn ws(&self) -> &Path {
        self.workspace.path()
    }

    pub fn git_dir(&self) -> PathBuf {
        self.home.path().join("checkpoints").join("chat-1.git")
    }

    pub fn repo(&self) -> ShadowRepo {
        self.repo_with(Limits::default())
    }

    pub fn repo_with(&self, limits: Limits) -> ShadowRepo {
        ShadowRepo::open(&self.git_dir(), self.ws(), limits).unwrap()
    }

    /// Writes `bytes` at `path`, creating its folders.
    pub fn write(&self, path: &str, bytes: impl AsRef<[u8]>) {
        let full = self.ws().join(path);
        fs::create_dir_all(full.parent().unwrap()).unwrap();
        fs::write(full, bytes).unwrap();
    }

    pub fn read(&self, path: &str) -> Vec<u8> {
        fs::read(self.ws().join(path)).unwrap()
    }

    pub fn exists(&self, path: &str) -> bool {
        fs::symlink_metadata(self.ws().join(path)).is_ok()
    }

    pub fn remove(&self, path: &str) {
        fs::remove_file(self.ws().join(path)).unwrap();
    }

    /// Replaces whatever is at `path` with a symlink to `target`.
    pub fn symlink(&self, target: &str, path: &str) {
        let full = self.ws().join(path);
        let _ = fs::remove_file(&full);
        std::os::unix::fs::symlink(target, full).unwrap();
    }

    pub fn chmod(&self, path: &str, mode: u32) {
        fs::set_permissions(self.ws().join(path), fs::Permissions::from_mode(mode)).unwrap();
    }

    /// The workspace's files, symlinks and folders (not the user's `.git`).
    pub fn tree(&self) -> BTreeMap<String, Entry> {
        let mut found = BTreeMap::new();
        walk(self.ws(), self.ws(), &mut found);
        found
    }

    /// Runs the user's own git in the workspace, as the user would (but with no config of
    /// the machine's). Returns its stdout.
    pub fn user_git(&self, args: &[&str]) -> String {
        let output = user_git_command(self.ws(), self.home.path()).args(args).output().unwrap();
        assert!(
            output.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    }
}

/// One thing in the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    File { bytes: Vec<u8>, executable: bool },
    Link(PathBuf),
    Folder,
}

fn walk(root: &Path, dir: &Path, found: &mut BTreeMap<String, Entry>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        if relative == ".git" {
            continue;
        }
        let meta = fs::symlink_metadata(&path).unwrap();
        let value = if meta.file_type().is_symlink() {
            Entry::Link(fs::read_link(&path).unwrap())
        } else if meta.is_dir() {
            walk(root, &path, found);
            Entry::Folder
        } else {
            let executable = meta.permissions().mode() & 0o111 != 0;
            Entry::File { bytes: fs::read(&path).unwrap(), executable }
        };
        found.insert(relative, value);
    }
}

/// Every file under `dir` with its bytes: for proving a folder (the user's `.git`) unchanged.
pub fn every_file(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut found = BTreeMap::new();
    collect_bytes(dir, dir, &mut found);
    found
}

fn collect_bytes(root: &Path, dir: &Path, found: &mut BTreeMap<String, Vec<u8>>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let relative = path.strip_prefix(root).unwrap().to_string_lossy().into_owned();
        let meta = fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            collect_bytes(root, &path, found);
            found.insert(format!("{relative}/"), Vec::new());
        } else {
            found.insert(relative, fs::read(&path).unwrap_or_default());
        }
    }
}

/// The user's git, with their (here: empty) configuration and an identity for commits; never
/// optional locks, so looking at the repository does not refresh its index.
pub fn user_git_command(workspace: &Path, home: &Path) -> Command {
    let mut command = Command::new("git");
    command
        .current_dir(workspace)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .env_remove("GIT_INDEX_FILE")
        .env("HOME", home)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_OPTIONAL_LOCKS", "0")
        .args(["-c", "user.name=User", "-c", "user.email=user@example.com"])
        .args(["-c", "init.defaultBranch=main", "-c", "commit.gpgsign=false"]);
    command
}

/// A diff as one text: each file's line, then its patch.
pub fn render(diff: &Diff) -> String {
    let mut text = format!("+{} -{}\n", diff.additions, diff.deletions);
    for file in &diff.files {
        let from = file.old_path.as_ref().map(|old| format!(" (from {old})")).unwrap_or_default();
        let flags = [(file.binary, " binary"), (file.too_large, " too_large")]
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, name)| *name)
            .collect::<String>();
        text.push_str(&format!(
            "{} {}{from} +{} -{}{flags}\n",
            file.status.as_str(),
            file.path,
            file.additions,
            file.deletions
        ));
        if let Some(patch) = &file.patch {
            text.push_str(patch);
        }
    }
    text
}

/// A restore as the user makes it: previewed first, then confirmed with that preview.
pub fn restore(
    repo: &ShadowRepo,
    target: &str,
    latest: &str,
    overwrite: bool,
) -> Result<preflight_checkpoints::RestoreReport, preflight_checkpoints::CheckpointError> {
    let plan = repo.restore_plan(target, latest)?;
    repo.restore(target, latest, overwrite, &plan.digest)
}
