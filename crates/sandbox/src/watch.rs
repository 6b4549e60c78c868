//! What of the workspace a run must not create or change, found by a bounded walk that
//! follows no link: every `.git` at any depth (a folder, a file such as a submodule's
//! `gitdir: …` pointer, or a link; in any case, `.GIT` too, since some file systems fold case),
//! the folders those `.git` files point at, and the `.dwp` plan folder at the root.
//!
//! A [`Snapshot`] taken before a run gives the paths the jail binds read-only
//! ([`Snapshot::protected`]); one taken after it, compared with the first, gives what the run
//! created or replaced (`quarantine.rs` renames those aside). Git runs a program named there
//! (a hook, `core.fsmonitor`) as the user, outside the sandbox, at their next git command.

use crate::listings::Listings;
use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// At most this many directory entries are read by one walk; past it the rest is neither
/// protected nor checked, and the result says so.
pub const MAX_ENTRIES: usize = 1_000_000;
/// Folders deeper than this are not walked (and the result says so).
pub const MAX_DEPTH: usize = 64;
/// A `.git` file longer than this is no `gitdir:` pointer git wrote.
const MAX_POINTER_BYTES: u64 = 4096;

/// What sort of thing a watched path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Folder,
    File,
    Link,
    /// A FIFO, socket or device: never opened.
    Other,
    /// A folder the walk could not list: what it holds cannot be checked.
    Sealed,
    /// A folder a `.git` file points at that does not exist (yet).
    Missing,
}

/// Enough of a watched path to tell it was replaced or changed: its type and device/inode,
/// and for files their size and modification time. A folder's own size and time are left
/// out: the user's `git commit` or the engine's plan writes change them, a run cannot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    pub kind: Kind,
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
}

impl Identity {
    const MISSING: Identity =
        Identity { kind: Kind::Missing, dev: 0, ino: 0, size: 0, mtime: (0, 0) };

    fn of(meta: &std::fs::Metadata) -> Identity {
        let file_type = meta.file_type();
        let kind = if file_type.is_dir() {
            Kind::Folder
        } else if file_type.is_file() {
            Kind::File
        } else if file_type.is_symlink() {
            Kind::Link
        } else {
            Kind::Other
        };
        let (size, mtime) = match kind {
            Kind::Folder => (0, (0, 0)),
            _ => (meta.size(), (meta.mtime(), meta.mtime_nsec())),
        };
        Identity { kind, dev: meta.dev(), ino: meta.ino(), size, mtime }
    }

    fn at(path: &Path) -> Identity {
        std::fs::symlink_metadata(path).map(|meta| Identity::of(&meta)).unwrap_or(Identity::MISSING)
    }
}

/// The watched paths of one workspace at one moment, relative to it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Snapshot {
    pub entries: BTreeMap<PathBuf, Identity>,
    /// Why the walk stopped short of the whole workspace, in plain words, when it did.
    pub capped: Option<String>,
}

/// Walks `workspace` (canonical) breadth-first, reading at most [`MAX_ENTRIES`] entries and
/// [`MAX_DEPTH`] levels, following no link and not entering a watched folder.
pub fn snapshot(workspace: &Path) -> Snapshot {
    snapshot_with(workspace, &mut Listings::default(), MAX_ENTRIES, MAX_DEPTH)
}

/// [`snapshot`] with other caps (the tests' small ones).
pub fn snapshot_within(workspace: &Path, max_entries: usize, max_depth: usize) -> Snapshot {
    snapshot_with(workspace, &mut Listings::default(), max_entries, max_depth)
}

/// [`snapshot`] reusing the folder listings of earlier walks that still hold (`listings.rs`).
pub fn snapshot_with(
    workspace: &Path,
    listings: &mut Listings,
    max_entries: usize,
    max_depth: usize,
) -> Snapshot {
    let mut walk =
        Walk { workspace, listings, snapshot: Snapshot::default(), read: 0, max_entries };
    let mut level = vec![PathBuf::new()];
    let mut depth = 0;
    while !level.is_empty() && walk.snapshot.capped.is_none() {
        if depth == max_depth {
            walk.snapshot.capped = Some(format!(
                "folders deeper than {max_depth} levels were not checked for .git entries"
            ));
            break;
        }
        let mut next = Vec::new();
        for folder in level {
            if !walk.list(&folder, depth, &mut next) {
                break;
            }
        }
        level = next;
        depth += 1;
    }
    walk.listings.finish_walk();
    walk.snapshot
}

struct Walk<'a> {
    workspace: &'a Path,
    listings: &'a mut Listings,
    snapshot: Snapshot,
    read: usize,
    max_entries: usize,
}

impl Walk<'_> {
    /// Lists one folder: records its watched entries and queues its other folders. False
    /// when the entry budget ran out.
    fn list(&mut self, folder: &Path, depth: usize, next: &mut Vec<PathBuf>) -> bool {
        let budget = self.max_entries - self.read;
        let listing = match self.listings.list(self.workspace, folder, depth, budget) {
            Ok(listing) => listing,
            Err(_) => {
                self.record_sealed(folder);
                return true;
            }
        };
        if listing.entries > budget {
            self.snapshot.capped = Some(format!(
                "the workspace holds more than {max} files and folders; only the first {read} \
                 were checked for .git entries",
                max = self.max_entries,
                read = self.read
            ));
            return false;
        }
        self.read += listing.entries;
        for name in &listing.watched {
            self.record(folder.join(name));
        }
        next.extend(listing.folders.iter().map(|name| folder.join(name)));
        true
    }

    fn record(&mut self, relative: PathBuf) {
        let path = self.workspace.join(&relative);
        let identity = Identity::at(&path);
        if identity.kind == Kind::File {
            if let Some(target) = pointed_folder(self.workspace, &path) {
                let target_identity = Identity::at(&self.workspace.join(&target));
                self.snapshot.entries.insert(target, target_identity);
            }
        }
        self.snapshot.entries.insert(relative, identity);
    }

    /// A folder that cannot be listed (the workspace itself aside): a run could hide a `.git`
    /// in a folder it made unreadable, so the folder itself is watched.
    fn record_sealed(&mut self, folder: &Path) {
        if folder.as_os_str().is_empty() {
            return;
        }
        let mut identity = Identity::at(&self.workspace.join(folder));
        if identity.kind == Kind::Folder {
            identity.kind = Kind::Sealed;
            self.snapshot.entries.insert(folder.to_path_buf(), identity);
        }
    }
}

/// The folder a `.git` file's `gitdir: …` line names, relative to the workspace, when it lies
/// inside it (a submodule's `../.git/modules/lib`, a worktree's folder). Read without
/// following a link and capped, so a planted file cannot hang or flood the walk.
fn pointed_folder(workspace: &Path, git_file: &Path) -> Option<PathBuf> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(git_file)
        .ok()?;
    let mut text = String::new();
    file.take(MAX_POINTER_BYTES).read_to_string(&mut text).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let joined = git_file.parent()?.join(target);
    let real = joined.canonicalize().unwrap_or_else(|_| lexically_normal(&joined));
    let relative = real.strip_prefix(workspace).ok()?;
    (!relative.as_os_str().is_empty()).then(|| relative.to_path_buf())
}

/// `a/b/../c` as `a/c`, for a path that does not exist (so cannot be canonicalized).
fn lexically_normal(path: &Path) -> PathBuf {
    let mut normal = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                normal.pop();
            }
            Component::CurDir => {}
            other => normal.push(other),
        }
    }
    normal
}

impl Snapshot {
    /// The absolute paths the jail binds read-only over the writable workspace: every watched
    /// folder and file, and what a watched link points at when that lies inside the workspace
    /// (a link leaving it is not followed: nothing outside is visible in the jail anyway).
    /// Parents come before what they hold.
    pub fn protected(&self, workspace: &Path) -> Vec<PathBuf> {
        let mut paths: Vec<PathBuf> = Vec::new();
        for (relative, identity) in &self.entries {
            let path = workspace.join(relative);
            match identity.kind {
                Kind::Folder | Kind::File | Kind::Sealed => paths.push(path),
                Kind::Link => paths.extend(followed_inside(workspace, &path)),
                Kind::Other | Kind::Missing => {}
            }
        }
        paths.sort();
        paths.dedup();
        paths
    }

    /// The watched paths of `self` (taken after a run) that are new or not what `before` had
    /// at the same path, deepest first (so a folder is renamed after what it holds).
    pub fn changed_since(&self, before: &Snapshot) -> Vec<(PathBuf, bool)> {
        let mut changed: Vec<(PathBuf, bool)> = self
            .entries
            .iter()
            .filter(|(_, identity)| identity.kind != Kind::Missing)
            .filter_map(|(path, identity)| match before.entries.get(path) {
                Some(earlier) if earlier == identity => None,
                Some(earlier) => Some((path.clone(), earlier.kind == Kind::Missing)),
                None => Some((path.clone(), true)),
            })
            .collect();
        changed.sort_by_key(|(path, _)| std::cmp::Reverse(path.components().count()));
        changed
    }
}

impl Snapshot {
    /// Where the entry at `path` (in `self`) was in `before`, when it is the same thing at
    /// another path (its folder was renamed by the run).
    pub fn moved_from(&self, path: &Path, before: &Snapshot) -> Option<PathBuf> {
        let identity = self.entries.get(path)?;
        let earlier =
            before.entries.iter().find(|(at, was)| *was == identity && at.as_path() != path);
        earlier.map(|(at, _)| at.clone())
    }
}

fn followed_inside(workspace: &Path, link: &Path) -> Option<PathBuf> {
    let real = link.canonicalize().ok()?;
    (real.starts_with(workspace) && real != workspace).then_some(real)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listings::Listing;
    use crate::names::is_watched_name;
    use std::ffi::OsStr;
    use std::io;

    fn workspace() -> io::Result<(tempfile::TempDir, PathBuf)> {
        let root = tempfile::tempdir()?;
        let ws = root.path().canonicalize()?;
        std::fs::create_dir_all(ws.join("lib/.git"))?;
        std::fs::create_dir_all(ws.join("src/deep"))?;
        Ok((root, ws))
    }

    #[test]
    fn a_kept_listing_is_used_only_while_the_folder_is_unchanged() -> io::Result<()> {
        let (_root, ws) = workspace()?;
        let mut listings = Listings::for_workspace(&ws);
        // A listing kept for `lib` at its present stamp that says it is empty: used as is.
        let stamp = Listings::stamp(&ws, Path::new("lib"))?;
        listings.keep(Path::new("lib"), stamp, Listing::default());
        let kept = snapshot_with(&ws, &mut listings, MAX_ENTRIES, MAX_DEPTH);
        assert!(!kept.entries.contains_key(Path::new("lib/.git")));
        // The same listing for a stamp the folder no longer has: read again.
        listings.keep(Path::new("lib"), stamp.changed(), Listing::default());
        let read = snapshot_with(&ws, &mut listings, MAX_ENTRIES, MAX_DEPTH);
        assert_eq!(read, snapshot(&ws));
        assert!(read.entries.contains_key(Path::new("lib/.git")));
        Ok(())
    }

    #[test]
    fn a_git_made_after_a_walk_is_found_by_the_next() -> io::Result<()> {
        let (_root, ws) = workspace()?;
        let mut listings = Listings::for_workspace(&ws);
        let first = snapshot_with(&ws, &mut listings, MAX_ENTRIES, MAX_DEPTH);
        assert!(!first.entries.contains_key(Path::new("src/deep/.git")));
        // Made within the same clock tick as the folder itself, as a run can: a listing read
        // so soon after a change is never kept (`SETTLED`), so the next walk reads it again.
        std::fs::create_dir(ws.join("src/deep/.git"))?;
        let again = snapshot_with(&ws, &mut listings, MAX_ENTRIES, MAX_DEPTH);
        assert!(again.entries.contains_key(Path::new("src/deep/.git")));
        Ok(())
    }

    #[test]
    fn git_in_any_case_at_any_depth_and_dwp_at_the_root_are_watched() {
        let cases = [
            (".git", 0, true),
            (".GIT", 3, true),
            (".Git", 1, true),
            (".dwp", 0, true),
            (".DWP", 0, true),
            (".dwp", 1, false),
            (".gitignore", 0, false),
            ("git", 0, false),
            (".git.quarantined-by-preflight-1", 2, false),
        ];
        for (name, depth, watched) in cases {
            assert_eq!(is_watched_name(OsStr::new(name), depth), watched, "{name} at {depth}");
        }
    }

    #[test]
    fn the_walk_finds_every_git_follows_no_link_and_says_when_it_stopped() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let ws = root.path().canonicalize()?;
        let outside = tempfile::tempdir()?;
        std::fs::create_dir_all(ws.join(".git/modules/lib"))?;
        std::fs::create_dir_all(ws.join("vendor/x/.GIT"))?;
        std::fs::create_dir_all(ws.join("lib"))?;
        std::fs::write(ws.join("lib/.git"), "gitdir: ../.git/modules/lib\n")?;
        std::fs::create_dir_all(ws.join(".dwp"))?;
        std::fs::create_dir_all(outside.path().join("deep/.git"))?;
        std::os::unix::fs::symlink(outside.path(), ws.join("linked"))?;
        let snapshot = snapshot(&ws);
        let found: Vec<&Path> = snapshot.entries.keys().map(PathBuf::as_path).collect();
        let expected = [".dwp", ".git", ".git/modules/lib", "lib/.git", "vendor/x/.GIT"];
        assert_eq!(found, expected.map(Path::new));
        assert_eq!(snapshot.capped, None);
        let protected = snapshot.protected(&ws);
        assert_eq!(protected, expected.map(|p| ws.join(p)));

        let few = snapshot_within(&ws, 3, MAX_DEPTH);
        assert!(few.capped.is_some_and(|why| why.contains("more than 3")));
        let shallow = snapshot_within(&ws, MAX_ENTRIES, 2);
        assert!(shallow.capped.is_some_and(|why| why.contains("deeper than 2")));
        assert!(!shallow.entries.contains_key(Path::new("vendor/x/.GIT")));
        Ok(())
    }

    #[test]
    fn a_new_or_replaced_entry_is_a_change_an_untouched_one_is_not() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let ws = root.path().canonicalize()?;
        std::fs::create_dir_all(ws.join("kept/.git"))?;
        std::fs::create_dir_all(ws.join("lib"))?;
        std::fs::write(ws.join("lib/.git"), "gitdir: ../gone\n")?;
        std::fs::create_dir_all(ws.join("sub"))?;
        std::fs::write(ws.join("sub/.git"), "gitdir: ../.git/modules/sub\n")?;
        let before = snapshot(&ws);
        // The user's own git at work inside a folder changes nothing the guard compares.
        std::fs::write(ws.join("kept/.git/HEAD"), "ref: refs/heads/main\n")?;
        std::fs::create_dir_all(ws.join("gone"))?;
        std::fs::write(ws.join("sub/.git"), "gitdir: ../planted\n")?;
        std::fs::create_dir_all(ws.join("new/.git"))?;
        let changed = snapshot(&ws).changed_since(&before);
        let expected = [("new/.git", true), ("sub/.git", false), ("gone", true)];
        assert_eq!(changed, expected.map(|(p, created)| (PathBuf::from(p), created)));
        assert!(snapshot(&ws).changed_since(&snapshot(&ws)).is_empty());
        Ok(())
    }

    #[test]
    fn paths_are_normalised_without_the_file_system() {
        let cases = [
            ("/w/lib/../.git/modules/lib", "/w/.git/modules/lib"),
            ("/w/./a/b/../../c", "/w/c"),
            ("/w/../../x", "/x"),
        ];
        for (path, normal) in cases {
            assert_eq!(lexically_normal(Path::new(path)), PathBuf::from(normal), "{path}");
        }
    }
}
