//! Staging the work tree into an index: the files that changed since the index was last
//! written, less the ones left out (too large, past the checkpoint's budget, nested
//! repositories, unreadable), each of which is reported.
//!
//! Only the candidates git lists (`ls-files --others --modified --deleted`) are looked at, and
//! git's stat cache makes that list cheap on a large unchanged tree: a checkpoint costs what
//! changed, not what is there.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fmt;
use std::fs;
use std::io::ErrorKind;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::error::CheckpointError;
use crate::git::{Deadline, Git};
use crate::kept_out::never_kept;
use crate::repo::Limits;

/// A file a checkpoint left out, and why. It is not in the checkpoint: a restore neither
/// writes it back nor deletes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// Relative to the work tree, `/`-separated; a nested repository's folder ends with `/`.
    pub path: String,
    /// The file's size (0 for a nested repository).
    pub bytes: u64,
    pub reason: SkipReason,
}

/// Why a file was left out of a checkpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Larger than `Limits::max_file_bytes`.
    TooLarge,
    /// The checkpoint already held `Limits::max_checkpoint_bytes` of new content; the file
    /// comes in with a later checkpoint.
    CheckpointFull,
    /// A folder with a `.git` of its own: kept out rather than turned into a gitlink that
    /// would hold none of its files.
    NestedRepository,
    /// The file could not be read (permissions).
    Unreadable,
}

impl SkipReason {
    pub fn as_str(self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::CheckpointFull => "checkpoint_full",
            SkipReason::NestedRepository => "nested_repository",
            SkipReason::Unreadable => "unreadable",
        }
    }
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SkipReason::TooLarge => "larger than a checkpoint keeps per file",
            SkipReason::CheckpointFull => "the checkpoint reached its size limit",
            SkipReason::NestedRepository => "a git repository of its own",
            SkipReason::Unreadable => "could not be read",
        })
    }
}

/// What staging did.
#[derive(Debug, Default)]
pub(crate) struct Staged {
    pub skipped: Vec<Skipped>,
    /// The left-out paths as git names them (bytes), for a caller that must set them apart.
    pub left_out: Vec<Vec<u8>>,
}

/// `update-index` with every file's content streamed into one pack per call rather than a
/// loose object (a file, and a disk block) per file: staging 10,000 new files took a
/// second instead of five on the bench machine. The threshold is set on this call alone:
/// elsewhere it would make diffs treat every file as binary.
const STAGE: [&str; 8] = [
    "-c",
    "core.bigFileThreshold=1",
    "update-index",
    "--add",
    "--remove",
    "--replace",
    "-z",
    "--stdin",
];

/// Stages every change of the work tree into `git`'s index within `limits`.
pub(crate) fn stage(
    git: &Git,
    work_tree: &Path,
    limits: &Limits,
    deadline: Deadline,
) -> Result<Staged, CheckpointError> {
    let (choice, staged) = choose(work_tree, candidates(git, deadline)?, limits);
    // Git refuses to look past a symlink, so a file whose folder became one is dropped by
    // name: it is no longer in the work tree (only, perhaps, where the link points).
    if !choice.beyond_links.is_empty() {
        let args = ["update-index", "--force-remove", "-z", "--stdin"];
        git.output(&args, &nul_separated(&choice.beyond_links), deadline)?;
    }
    if !choice.stage.is_empty() {
        git.output(&STAGE, &nul_separated(&choice.stage), deadline)?;
    }
    Ok(staged)
}

/// Drops from the index every entry no checkpoint may hold: what a checkpoint taken before
/// these folders were kept out by name (a `.gitignore` un-ignoring them) left there.
pub(crate) fn drop_never_kept(git: &Git, deadline: Deadline) -> Result<(), CheckpointError> {
    let listed = git.output(&["ls-files", "-z", "--cached"], b"", deadline)?;
    let dropped: Vec<Vec<u8>> = listed
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty() && never_kept(p))
        .map(<[u8]>::to_vec)
        .collect();
    if !dropped.is_empty() {
        let args = ["update-index", "--force-remove", "-z", "--stdin"];
        git.output(&args, &nul_separated(&dropped), deadline)?;
    }
    Ok(())
}

fn nul_separated(paths: &[Vec<u8>]) -> Vec<u8> {
    paths.iter().flat_map(|path| path.iter().copied().chain([0])).collect()
}

/// The paths that may differ from the index: untracked (not ignored), modified, deleted;
/// never one of the folders no checkpoint holds, whatever `.gitignore` un-ignores.
fn candidates(git: &Git, deadline: Deadline) -> Result<Vec<Vec<u8>>, CheckpointError> {
    let args = ["ls-files", "-z", "--others", "--modified", "--deleted", "--exclude-standard"];
    let listed = git.output(&args, b"", deadline)?;
    let mut paths: Vec<Vec<u8>> = listed
        .split(|b| *b == 0)
        .filter(|p| !p.is_empty() && !never_kept(p))
        .map(<[u8]>::to_vec)
        .collect();
    // A deleted file is listed twice (deleted, and modified).
    paths.sort();
    paths.dedup();
    Ok(paths)
}

/// The candidates sorted out: what goes to `update-index` and how.
#[derive(Default)]
struct Choice {
    /// Deletions first, so that a file replacing a folder (or the reverse) stages cleanly.
    stage: Vec<Vec<u8>>,
    beyond_links: Vec<Vec<u8>>,
}

fn choose(work_tree: &Path, candidates: Vec<Vec<u8>>, limits: &Limits) -> (Choice, Staged) {
    let (mut choice, mut keep, mut staged) = (Choice::default(), Vec::new(), Staged::default());
    let mut judge = Judge { work_tree, limits, used: 0, folders: HashMap::new() };
    for path in candidates {
        match judge.judge(&path) {
            Judged::Gone => choice.stage.push(path),
            Judged::BeyondLink => choice.beyond_links.push(path),
            Judged::Keep => keep.push(path),
            Judged::Skip(reason, bytes) => {
                staged.skipped.push(Skipped { path: display(&path), bytes, reason });
                staged.left_out.push(path);
            }
        }
    }
    choice.stage.append(&mut keep);
    (choice, staged)
}

enum Judged {
    Gone,
    BeyondLink,
    Keep,
    Skip(SkipReason, u64),
}

/// Looks at each candidate on disk, counting new content against the checkpoint's cap.
struct Judge<'a> {
    work_tree: &'a Path,
    limits: &'a Limits,
    used: u64,
    /// Whether each folder looked at is a real folder (not a symlink, not a file).
    folders: HashMap<Vec<u8>, bool>,
}

impl Judge<'_> {
    fn judge(&mut self, path: &[u8]) -> Judged {
        if path.ends_with(b"/") {
            return Judged::Skip(SkipReason::NestedRepository, 0);
        }
        if self.beyond_link(path) {
            return Judged::BeyondLink;
        }
        let full = self.work_tree.join(OsStr::from_bytes(path));
        let meta = match fs::symlink_metadata(&full) {
            Ok(meta) => meta,
            Err(error) if error.kind() == ErrorKind::NotFound => return Judged::Gone,
            Err(_) => return Judged::Skip(SkipReason::Unreadable, 0),
        };
        if !meta.is_file() {
            // A symlink is kept as a link (a few bytes); anything else git leaves alone.
            return Judged::Keep;
        }
        let bytes = meta.len();
        if bytes > self.limits.max_file_bytes {
            return Judged::Skip(SkipReason::TooLarge, bytes);
        }
        if self.used.saturating_add(bytes) > self.limits.max_checkpoint_bytes {
            return Judged::Skip(SkipReason::CheckpointFull, bytes);
        }
        if open_plain(&full).is_err() {
            return Judged::Skip(SkipReason::Unreadable, bytes);
        }
        self.used += bytes;
        Judged::Keep
    }

    /// Whether a folder on the way to `path` is a symlink or a file (or is missing, when
    /// the path is gone anyway).
    fn beyond_link(&mut self, path: &[u8]) -> bool {
        let slashes = path.iter().enumerate().filter(|(_, b)| **b == b'/').map(|(at, _)| at);
        for end in slashes {
            let folder = &path[..end];
            let real = match self.folders.get(folder) {
                Some(real) => *real,
                None => {
                    let full = self.work_tree.join(OsStr::from_bytes(folder));
                    let real = fs::symlink_metadata(full).is_ok_and(|meta| meta.is_dir());
                    *self.folders.entry(folder.to_vec()).or_insert(real)
                }
            };
            if !real {
                return true;
            }
        }
        false
    }
}

/// Opens a regular file for reading without following a symlink or blocking on a FIFO that
/// took its place since the look.
fn open_plain(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new().read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK).open(path)
}

/// A path as the caller reads it (a name that is not UTF-8 is shown with replacements).
pub(crate) fn display(path: &[u8]) -> String {
    String::from_utf8_lossy(path).into_owned()
}
