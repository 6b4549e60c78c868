//! The commit a completed task points at (seed 002: "krótki hash commit", the link from
//! the plan to the code): the workspace's HEAD, read from the repository's files.
//!
//! A workspace is untrusted, so no `git` program runs here (a repository's config can
//! name programs that git would start). Only `HEAD`, a loose ref and `packed-refs` are
//! read: regular files, never through a link, capped in size. Anything else (no
//! repository, an unborn branch, a shape this does not know) is `None`: no hash recorded.

use std::path::{Path, PathBuf};

use preflight_files::read_regular_capped;

/// Digits of the short hash, git's own default abbreviation.
const SHORT: usize = 7;
/// `HEAD`, a ref and a `.git` file are a line; packed refs of a big repository are more.
const SMALL_CAP: usize = 4 * 1024;
const PACKED_CAP: usize = 8 << 20;

/// The short hash of `workspace`'s HEAD commit, when it is a git repository with one.
pub(crate) fn head_commit(workspace: &Path) -> Option<String> {
    let git_dir = git_dir(workspace)?;
    let common = common_dir(&git_dir);
    let head = read_small(&git_dir, "HEAD")?;
    let head = head.trim();
    let full = match head.strip_prefix("ref:") {
        Some(name) => resolve_ref(&git_dir, &common, name.trim())?,
        None => head.to_owned(),
    };
    is_object_id(&full).then(|| full[..SHORT].to_ascii_lowercase())
}

/// `.git` as a folder, or the folder a `.git` file names (`gitdir: …`, a worktree).
fn git_dir(workspace: &Path) -> Option<PathBuf> {
    let dot_git = workspace.join(".git");
    let kind = std::fs::symlink_metadata(&dot_git).ok()?;
    if kind.is_dir() {
        return Some(dot_git);
    }
    let text = read_small(workspace, ".git")?;
    let named = PathBuf::from(text.trim().strip_prefix("gitdir:")?.trim());
    Some(if named.is_absolute() { named } else { workspace.join(named) })
}

/// Where a worktree's shared refs live (`commondir`), else the git folder itself.
fn common_dir(git_dir: &Path) -> PathBuf {
    match read_small(git_dir, "commondir") {
        Some(text) => {
            let named = PathBuf::from(text.trim());
            if named.is_absolute() {
                named
            } else {
                git_dir.join(named)
            }
        }
        None => git_dir.to_owned(),
    }
}

/// A ref's object id: the loose file (per worktree, then shared), then `packed-refs`.
fn resolve_ref(git_dir: &Path, common: &Path, name: &str) -> Option<String> {
    if !name.starts_with("refs/") || name.split('/').any(|part| part.is_empty() || part == "..") {
        return None;
    }
    for dir in [git_dir, common] {
        if let Some(text) = read_small(dir, name) {
            return Some(text.trim().to_owned());
        }
    }
    let packed = read_regular_capped(common, Path::new("packed-refs"), PACKED_CAP).ok()?;
    let packed = String::from_utf8_lossy(&packed.bytes).into_owned();
    packed.lines().find_map(|line| {
        let (id, ref_name) = line.split_once(' ')?;
        (ref_name.trim() == name).then(|| id.to_owned())
    })
}

fn read_small(dir: &Path, relative: &str) -> Option<String> {
    let read = read_regular_capped(dir, Path::new(relative), SMALL_CAP).ok()?;
    if read.truncated {
        return None;
    }
    String::from_utf8(read.bytes).ok()
}

/// A full SHA-1 or SHA-256 object id.
fn is_object_id(text: &str) -> bool {
    matches!(text.len(), 40 | 64) && text.chars().all(|c| c.is_ascii_hexdigit())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::process::Command;

    fn git(dir: &Path, args: &[&str]) -> String {
        let out = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(dir)
            .output()
            .expect("git runs");
        assert!(out.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    }

    #[test]
    fn the_head_of_a_repository_loose_packed_or_detached() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(head_commit(dir.path()), None, "not a repository");
        git(dir.path(), &["init", "-q", "-b", "main"]);
        assert_eq!(head_commit(dir.path()), None, "an unborn branch has no commit");
        git(dir.path(), &["commit", "-q", "--allow-empty", "-m", "one"]);
        let short = git(dir.path(), &["rev-parse", "--short=7", "HEAD"]);
        assert_eq!(head_commit(dir.path()).as_deref(), Some(short.as_str()), "loose ref");
        git(dir.path(), &["pack-refs", "--all"]);
        assert_eq!(head_commit(dir.path()).as_deref(), Some(short.as_str()), "packed ref");
        git(dir.path(), &["checkout", "-q", "--detach"]);
        assert_eq!(head_commit(dir.path()).as_deref(), Some(short.as_str()), "detached");
    }

    #[test]
    fn a_hostile_head_gives_no_hash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/HEAD"), "ref: refs/../../../etc/passwd\n").unwrap();
        assert_eq!(head_commit(dir.path()), None);
        std::fs::remove_file(dir.path().join(".git/HEAD")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join(".git/HEAD")).unwrap();
        assert_eq!(head_commit(dir.path()), None);
    }
}
