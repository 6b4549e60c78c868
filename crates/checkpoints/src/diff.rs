//! What changed between two checkpoints: each file's status, line counts and patch, and the
//! cheap figures alone (`stat`).
//!
//! Two git calls: `--raw --numstat` for the list and the figures, `--patch` streamed into
//! one capped section per file. Both list files in the same order (git's diff queue), which
//! is how a patch section finds its file. No external diff, no textconv, no colour.
//!
//! **Invariant:** a diff returns at most `Limits::max_diff_bytes` of file entries and patches
//! together, however many files changed: the entries first (in order, as many as fit in half
//! of it, so that some patches always show), then the patches that fit in the rest; what is
//! left out is counted in `Diff::truncated`, and the figures (`additions`, `deletions`) stay
//! those of every file.

use crate::error::CheckpointError;
use crate::patch::{Section, Sections};
use crate::raw::{fields, line_counts, raw_changes, LineCounts, RawChange};
use crate::repo::ShadowRepo;
use crate::stage::display;

const DIFF_FLAGS: &[&str] = &["--no-ext-diff", "--no-textconv", "--no-color", "-M"];

/// What a file's entry costs of the budget besides its path(s): its status, figures and
/// flags as a caller sends them on.
const ENTRY_BYTES: usize = 128;

/// The changes between two checkpoints, file by file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    /// In git's order; fewer than changed when the diff was past its budget.
    pub files: Vec<FileDiff>,
    /// Lines added and deleted in every changed file, listed or not.
    pub additions: usize,
    pub deletions: usize,
    /// What the diff's budget (`Limits::max_diff_bytes`) left out, when it left something.
    pub truncated: Option<Truncated>,
}

/// What a diff past its budget left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Truncated {
    /// Changed files not listed at all (the last ones in git's order).
    pub files_left_out: usize,
    /// Listed files whose patch is not returned for want of budget (`too_large` is set).
    pub patches_left_out: usize,
    /// The patch text not returned for want of budget, in bytes (the unlisted files' too).
    pub bytes_left_out: u64,
    /// The diff's budget, in bytes.
    pub budget: u64,
}

impl Diff {
    /// How many files changed, listed or not.
    pub fn changed_files(&self) -> usize {
        self.files.len() + self.truncated.map_or(0, |cut| cut.files_left_out)
    }
}

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    /// A rename's source.
    pub old_path: Option<String>,
    pub status: FileStatus,
    pub additions: usize,
    pub deletions: usize,
    pub binary: bool,
    /// The patch is not returned (`patch` is `None`): longer than `Limits::max_patch_bytes`,
    /// or past what was left of the diff's budget (`Diff::truncated` counts those). The line
    /// counts stand.
    pub too_large: bool,
    /// This file's unified diff as git writes it (from its `diff --git` line); `None` for a
    /// binary file and a patch that is too large.
    pub patch: Option<String>,
}

/// How a file changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileStatus {
    Added,
    Modified,
    Deleted,
    Renamed,
    /// A file became a symlink or the reverse.
    TypeChanged,
}

impl FileStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            FileStatus::Added => "added",
            FileStatus::Modified => "modified",
            FileStatus::Deleted => "deleted",
            FileStatus::Renamed => "renamed",
            FileStatus::TypeChanged => "type_changed",
        }
    }

    fn from_raw(status: u8) -> Option<FileStatus> {
        Some(match status {
            b'A' => FileStatus::Added,
            b'M' => FileStatus::Modified,
            b'D' => FileStatus::Deleted,
            b'R' => FileStatus::Renamed,
            b'T' => FileStatus::TypeChanged,
            _ => return None,
        })
    }
}

/// Files changed, lines added and lines deleted (a binary file counts no lines).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffStat {
    pub files: usize,
    pub additions: usize,
    pub deletions: usize,
}

impl ShadowRepo {
    /// The changes from checkpoint `from` to checkpoint `to`, with each file's patch, within
    /// the diff's budget. `OtherFolder` when either is a checkpoint of another folder.
    pub fn diff(&self, from: &str, to: &str) -> Result<Diff, CheckpointError> {
        let deadline = self.deadline();
        let commits = self.commits_of_this_folder(&[from, to], deadline)?;
        let (from, to) = (commits[0].as_str(), commits[1].as_str());
        let budget = Budget {
            max_patch_bytes: self.limits.max_patch_bytes,
            max_diff_bytes: self.limits.max_diff_bytes,
        };
        let git = &self.git;
        diff_between(
            &mut |args| git.output(args, b"", deadline),
            &mut |args, sink| git.stream(args, b"", deadline, sink),
            [from, to],
            budget,
        )
    }

    /// Files changed and lines added and deleted from `from` to `to`: one cheap git call.
    pub fn stat(&self, from: &str, to: &str) -> Result<DiffStat, CheckpointError> {
        let deadline = self.deadline();
        let commits = self.known_commits(&[from, to], deadline)?;
        let args =
            [&["diff", "--numstat", "-z"], DIFF_FLAGS, &[commits[0].as_str(), commits[1].as_str()]];
        let listed = self.git.output(&args.concat(), b"", deadline)?;
        let counts = line_counts(&mut fields(&listed)).ok_or_else(|| unreadable("--numstat"))?;
        let lines = counts.iter().flatten();
        Ok(DiffStat {
            files: counts.len(),
            additions: lines.clone().map(|(added, _)| added).sum(),
            deletions: lines.map(|(_, deleted)| deleted).sum(),
        })
    }
}

/// What one diff may return: a file's patch, and the whole.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) max_patch_bytes: usize,
    pub(crate) max_diff_bytes: usize,
}

/// Runs a git call and returns its stdout.
pub(crate) type Output<'a> = dyn FnMut(&[&str]) -> Result<Vec<u8>, CheckpointError> + 'a;
/// Runs a git call, streaming its stdout to the sink a line at a time.
pub(crate) type Stream<'a> =
    dyn FnMut(&[&str], &mut (dyn FnMut(&[u8]) + Send)) -> Result<(), CheckpointError> + 'a;

/// The changes from commit `from` to commit `to` of whichever repository `output` and
/// `stream` run git on (the shadow repository, or a chat's worktree of the user's).
pub(crate) fn diff_between(
    output: &mut Output<'_>,
    stream: &mut Stream<'_>,
    [from, to]: [&str; 2],
    budget: Budget,
) -> Result<Diff, CheckpointError> {
    let listing = [&["diff", "--raw", "--numstat", "-z", "--no-abbrev"], DIFF_FLAGS, &[from, to]];
    let listed = output(&listing.concat())?;
    let mut sections = Sections::new(budget.max_patch_bytes, budget.max_diff_bytes);
    let patch = [&["diff", "--patch"], DIFF_FLAGS, &[from, to]].concat();
    stream(&patch, &mut |line| sections.feed(line))?;
    let mut fields = fields(&listed);
    let changes = raw_changes(&mut fields).ok_or_else(|| unreadable("--raw"))?;
    let counts = line_counts(&mut fields).ok_or_else(|| unreadable("--numstat"))?;
    let (files, sizes) = file_diffs(changes, counts, sections.sections)?;
    Ok(within_budget(files, sizes, budget.max_diff_bytes))
}

/// A file's patch as the budget sees it: its whole length, and whether the sections'
/// budget already dropped it.
#[derive(Debug, Clone, Copy)]
struct PatchSize {
    bytes: usize,
    over_budget: bool,
}

/// Pairs each change with its counts and its patch section(s): a type change is two
/// sections in a patch (the old file deleted, the new one created) and one record elsewhere.
fn file_diffs(
    changes: Vec<RawChange>,
    counts: Vec<LineCounts>,
    sections: Vec<Section>,
) -> Result<(Vec<FileDiff>, Vec<PatchSize>), CheckpointError> {
    let wanted: usize = changes.iter().map(|c| if c.status == b'T' { 2 } else { 1 }).sum();
    if counts.len() != changes.len() || sections.len() != wanted {
        return Err(unreadable("--patch"));
    }
    let mut sections = sections.into_iter();
    let mut files = Vec::with_capacity(changes.len());
    let mut sizes = Vec::with_capacity(changes.len());
    for (change, count) in changes.into_iter().zip(counts) {
        let taken: Vec<Section> =
            sections.by_ref().take(if change.status == b'T' { 2 } else { 1 }).collect();
        let status = FileStatus::from_raw(change.status).ok_or_else(|| unreadable("--raw"))?;
        sizes.push(PatchSize {
            bytes: taken.iter().map(|part| part.bytes).sum(),
            over_budget: taken.iter().any(|part| part.over_budget),
        });
        files.push(file_diff(change, status, count, taken));
    }
    Ok((files, sizes))
}

/// The files and patches that fit in `budget` bytes: the entries first, in order, as many
/// as fit in half of it; then each patch that fits in what is left. The figures count every
/// file.
fn within_budget(files: Vec<FileDiff>, sizes: Vec<PatchSize>, budget: usize) -> Diff {
    let additions = files.iter().map(|file| file.additions).sum();
    let deletions = files.iter().map(|file| file.deletions).sum();
    let entry = |file: &FileDiff| {
        ENTRY_BYTES + file.path.len() + file.old_path.as_ref().map_or(0, String::len)
    };
    let mut used = 0;
    let listed = files
        .iter()
        .take_while(|file| {
            used += entry(file);
            used <= budget / 2
        })
        .count();
    used = files[..listed].iter().map(entry).sum();
    let mut cut = Truncated { files_left_out: files.len() - listed, ..Truncated::default() };
    cut.bytes_left_out = sizes[listed..].iter().map(|size| size.bytes as u64).sum();
    let mut kept = Vec::with_capacity(listed);
    for (mut file, size) in files.into_iter().zip(sizes).take(listed) {
        let fits = file.patch.as_ref().is_some_and(|patch| used + patch.len() <= budget);
        if fits {
            used += file.patch.as_ref().map_or(0, String::len);
        } else if !file.binary && (file.patch.is_some() || size.over_budget) {
            (file.patch, file.too_large) = (None, true);
            cut.patches_left_out += 1;
            cut.bytes_left_out += size.bytes as u64;
        }
        kept.push(file);
    }
    let truncated = (cut.files_left_out + cut.patches_left_out > 0)
        .then_some(Truncated { budget: budget as u64, ..cut });
    Diff { files: kept, additions, deletions, truncated }
}

fn file_diff(
    change: RawChange,
    status: FileStatus,
    count: LineCounts,
    parts: Vec<Section>,
) -> FileDiff {
    let binary = count.is_none();
    let (additions, deletions) = count.unwrap_or((0, 0));
    let too_large = !binary && parts.iter().any(|part| part.too_large || part.over_budget);
    let patch = (!binary && !too_large).then(|| {
        let text: Vec<u8> = parts.into_iter().flat_map(|part| part.text).collect();
        String::from_utf8_lossy(&text).into_owned()
    });
    FileDiff {
        path: display(&change.path),
        old_path: change.old_path.as_deref().map(display),
        status,
        additions,
        deletions,
        binary,
        too_large,
        patch,
    }
}

fn unreadable(part: &str) -> CheckpointError {
    CheckpointError::Git {
        command: format!("git diff {part}"),
        stderr: "its output could not be read".into(),
    }
}
