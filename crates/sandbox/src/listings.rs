//! Folder listings kept from one walk to the next (`watch.rs`), so the walk around each run
//! reads only the folders that changed: a folder's list of names is reused while its device,
//! inode and change time (ctime) are what they were when it was read.
//!
//! Why ctime and not mtime: a run can set a folder's mtime back (`touch -d`), never its ctime
//! (the kernel sets it on every change, `utimensat` included; only the clock could move it).
//! A listing is kept only when the folder's ctime was already [`SETTLED`] old at the moment it
//! was read: a change after the read then gets a later ctime, however coarse the clock's
//! ticks. Kept only on local file systems whose ctime behaves so (ext2/3/4, XFS, Btrfs,
//! tmpfs), and only for folders on the workspace's own device; elsewhere every walk reads all.

use crate::names::is_watched_name;
use std::collections::HashMap;
use std::ffi::{CString, OsString};
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How old a folder's ctime must be when it is read for its listing to be kept.
const SETTLED: Duration = Duration::from_secs(2);

/// File systems whose folder ctime changes with every entry added, removed or renamed.
const TRUSTED_FILE_SYSTEMS: [u64; 4] = [0xEF53, 0x5846_5342, 0x9123_683E, 0x0102_1994];

/// What one folder held: its subfolders and watched entries by name, and how many entries.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Listing {
    pub folders: Vec<OsString>,
    pub watched: Vec<OsString>,
    pub entries: usize,
}

/// A folder's device, inode and ctime: what must not have moved for a listing to hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
}

impl Stamp {
    /// The same folder a nanosecond of change time later (the tests' changed folder).
    #[cfg(test)]
    pub(crate) fn changed(mut self) -> Stamp {
        self.ctime.1 += 1;
        self
    }

    fn of(meta: &std::fs::Metadata) -> Stamp {
        Stamp { dev: meta.dev(), ino: meta.ino(), ctime: (meta.ctime(), meta.ctime_nsec()) }
    }

    fn settled_before(&self, moment: SystemTime) -> bool {
        let ctime = SystemTime::UNIX_EPOCH
            + Duration::new(self.ctime.0.max(0) as u64, self.ctime.1.clamp(0, 999_999_999) as u32);
        ctime + SETTLED < moment
    }
}

/// The listings of one workspace's folders, by path relative to it.
#[derive(Debug, Default)]
pub struct Listings {
    workspace: PathBuf,
    /// The workspace's device when its file system is trusted; `None` keeps nothing.
    device: Option<u64>,
    kept: HashMap<PathBuf, (Stamp, Listing)>,
    /// Those read or reused by the walk under way: the next walk's `kept`.
    fresh: HashMap<PathBuf, (Stamp, Listing)>,
}

impl Listings {
    /// Listings for `workspace`, kept between walks when its file system allows.
    pub fn for_workspace(workspace: &Path) -> Listings {
        let device = trusted_device(workspace);
        Listings { workspace: workspace.to_path_buf(), device, ..Listings::default() }
    }

    pub fn workspace(&self) -> &Path {
        &self.workspace
    }

    /// Keeps a listing as if read (the tests' way to show a kept one is used).
    pub fn keep(&mut self, folder: &Path, stamp: Stamp, listing: Listing) {
        self.kept.insert(folder.to_path_buf(), (stamp, listing));
    }

    /// The stamp `folder` has now (the tests').
    pub fn stamp(workspace: &Path, folder: &Path) -> io::Result<Stamp> {
        Ok(Stamp::of(&std::fs::symlink_metadata(workspace.join(folder))?))
    }

    /// What `folder` (relative to `workspace`) holds, reading at most `limit` entries: the kept
    /// listing when the folder's stamp has not moved, else read now. A link is not listed.
    pub fn list(
        &mut self,
        workspace: &Path,
        folder: &Path,
        depth: usize,
        limit: usize,
    ) -> io::Result<Listing> {
        let path = workspace.join(folder);
        let meta = std::fs::symlink_metadata(&path)?;
        if !meta.is_dir() {
            return Err(io::Error::other("no longer a folder"));
        }
        let stamp = Stamp::of(&meta);
        if let Some((kept, listing)) = self.kept.remove(folder) {
            if kept == stamp {
                self.fresh.insert(folder.to_path_buf(), (stamp, listing.clone()));
                return Ok(listing);
            }
        }
        let read_at = SystemTime::now();
        let listing = read(&path, depth, limit)?;
        if self.device == Some(stamp.dev) && stamp.settled_before(read_at) {
            self.fresh.insert(folder.to_path_buf(), (stamp, listing.clone()));
        }
        Ok(listing)
    }

    /// Ends a walk: what it read or reused is kept for the next; folders it did not reach
    /// (gone, or past a cap) are forgotten.
    pub fn finish_walk(&mut self) {
        self.kept = std::mem::take(&mut self.fresh);
    }
}

fn read(path: &Path, depth: usize, limit: usize) -> io::Result<Listing> {
    let mut listing = Listing::default();
    for entry in std::fs::read_dir(path)?.flatten() {
        listing.entries += 1;
        if listing.entries > limit {
            break;
        }
        let name = entry.file_name();
        if is_watched_name(&name, depth) {
            listing.watched.push(name);
        } else if entry.file_type().is_ok_and(|kind| kind.is_dir()) {
            listing.folders.push(name);
        }
    }
    Ok(listing)
}

/// The workspace's device when its file system is one whose ctime can be trusted.
fn trusted_device(workspace: &Path) -> Option<u64> {
    let path = CString::new(workspace.as_os_str().as_bytes()).ok()?;
    // SAFETY: `statfs` is a plain C struct of integers, valid when zeroed.
    let mut stats: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: `path` is NUL-terminated and `stats` is a struct the call fills.
    let failed = unsafe { libc::statfs(path.as_ptr(), &mut stats) } != 0;
    if failed {
        return None;
    }
    let kind = (stats.f_type as u64) & 0xFFFF_FFFF;
    let trusted = TRUSTED_FILE_SYSTEMS.contains(&kind);
    trusted.then(|| std::fs::metadata(workspace).ok().map(|meta| meta.dev())).flatten()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_settled_stamp_is_one_older_than_the_margin() {
        let stamp = |seconds: i64| Stamp { dev: 1, ino: 2, ctime: (seconds, 0) };
        let moment = SystemTime::UNIX_EPOCH + Duration::from_secs(100);
        assert!(stamp(97).settled_before(moment));
        assert!(!stamp(98).settled_before(moment));
        assert!(!stamp(150).settled_before(moment));
    }
}
