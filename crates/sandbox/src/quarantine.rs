//! After a run, whatever `.git` or `.dwp` it created or replaced is renamed aside, never
//! deleted (`lib/.git` becomes `lib/.git.quarantined-by-preflight-1`), and the result says so
//! in plain words with how to restore it. A `.git` planted in the workspace would otherwise
//! run its hooks or `core.fsmonitor` as the user, unconfined, at their next `git status`.
//!
//! Runs may overlap. Each compares the workspace after it with its own snapshot from before
//! it, so an entry made during any run is caught by that run (whatever others started since);
//! one lock keeps snapshots and renames from interleaving.

use crate::listings::Listings;
use crate::watch::{self, Snapshot};
use serde::Serialize;
use std::ffi::{CString, OsString};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};
use std::sync::{Arc, Mutex};

/// How many `NAME.quarantined-by-preflight-<n>` names are tried before giving up.
const MAX_SUFFIX: u32 = 1000;

/// One entry renamed aside, paths relative to the workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Quarantined {
    pub path: String,
    /// Where it is now; `None` when the rename failed (`error` says why).
    pub moved_to: Option<String>,
    pub reason: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the guard did around one run: for the result's text and `structuredContent`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GuardReport {
    pub quarantined: Vec<Quarantined>,
    /// Why not all of the workspace was protected and checked, when it was not.
    pub incomplete: Option<String>,
}

/// The folder listings kept between walks (`listings.rs`), and the lock every snapshot and
/// quarantine of the workspace is taken under.
#[derive(Debug, Default, Clone)]
pub struct Guard {
    listings: Arc<Mutex<Listings>>,
}

impl Guard {
    /// The snapshot a run starts from (off the async threads: the walk reads the disk).
    pub async fn before(&self, workspace: &Path) -> Snapshot {
        let (listings, workspace) = (self.listings.clone(), workspace.to_path_buf());
        let walk = move || walk(&listings, &workspace);
        tokio::task::spawn_blocking(walk).await.unwrap_or_default()
    }

    /// Walks again after the run, renames aside what changed since `before`, and reports.
    pub async fn after(&self, workspace: &Path, before: Snapshot) -> GuardReport {
        let (listings, workspace) = (self.listings.clone(), workspace.to_path_buf());
        let check = move || {
            let mut held = listings.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            let after = snapshot_locked(&mut held, &workspace);
            let quarantined = after
                .changed_since(&before)
                .into_iter()
                .map(|(path, created)| {
                    let moved_from = after.moved_from(&path, &before).filter(|_| created);
                    quarantine(&workspace, &path, reason(&path, created, moved_from.as_deref()))
                })
                .collect();
            GuardReport { quarantined, incomplete: before.capped.or(after.capped) }
        };
        let report = tokio::task::spawn_blocking(check).await.unwrap_or_default();
        for entry in &report.quarantined {
            eprintln!("preflight-sandbox: quarantined {}: {}", entry.path, entry.reason);
        }
        report
    }
}

fn walk(listings: &Mutex<Listings>, workspace: &Path) -> Snapshot {
    let mut held = listings.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    snapshot_locked(&mut held, workspace)
}

fn snapshot_locked(listings: &mut Listings, workspace: &Path) -> Snapshot {
    if listings.workspace() != workspace {
        *listings = Listings::for_workspace(workspace);
    }
    watch::snapshot_with(workspace, listings, watch::MAX_ENTRIES, watch::MAX_DEPTH)
}

/// Renames `relative` aside in its own folder; the folders on the way are opened without
/// following links, so a link swapped in by another run cannot point the rename elsewhere.
fn quarantine(workspace: &Path, relative: &Path, reason: String) -> Quarantined {
    let path = relative.display().to_string();
    match rename_aside(workspace, relative) {
        Ok(moved) => Quarantined { path, moved_to: Some(moved), reason, error: None },
        Err(e) => Quarantined { path, moved_to: None, reason, error: Some(e.to_string()) },
    }
}

/// Why, in plain words: what the run did to it, and why that matters.
fn reason(relative: &Path, created: bool, moved_from: Option<&Path>) -> String {
    let what = match (moved_from, created) {
        (Some(from), _) => format!("this run moved it here from {}", from.display()),
        (None, true) => "this run created it".to_owned(),
        (None, false) => "this run replaced or changed it".to_owned(),
    };
    let is_plan = relative.components().count() == 1
        && relative.as_os_str().as_bytes().eq_ignore_ascii_case(b".dwp");
    if is_plan {
        format!("{what}; .dwp is Preflight's plan folder, written only by Preflight from outside the sandbox")
    } else {
        format!("{what}; git runs what a .git names (hooks, core.fsmonitor) as the user, outside the sandbox")
    }
}

fn rename_aside(workspace: &Path, relative: &Path) -> io::Result<String> {
    let name = relative.file_name().ok_or_else(|| io::Error::other("no file name"))?;
    let folder = open_folder(workspace, relative.parent().unwrap_or(Path::new("")))?;
    let old = CString::new(name.as_bytes())?;
    for n in 1..=MAX_SUFFIX {
        let mut aside = OsString::from(name);
        aside.push(format!(".quarantined-by-preflight-{n}"));
        let new = CString::new(aside.as_bytes())?;
        let fd = folder.as_raw_fd();
        // SAFETY: both names are NUL-terminated C strings and `fd` is an open folder.
        let renamed =
            unsafe { libc::renameat2(fd, old.as_ptr(), fd, new.as_ptr(), libc::RENAME_NOREPLACE) };
        if renamed == 0 {
            return Ok(relative.with_file_name(aside).display().to_string());
        }
        let error = io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EEXIST) {
            return Err(error);
        }
    }
    Err(io::Error::other("every quarantine name is taken"))
}

/// The folder `relative` (inside `workspace`), opened one component at a time, refusing links.
fn open_folder(workspace: &Path, relative: &Path) -> io::Result<OwnedFd> {
    let flags = libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC;
    let mut folder = open_at(libc::AT_FDCWD, workspace.as_os_str().as_bytes(), flags)?;
    for component in relative.components() {
        let Component::Normal(part) = component else {
            return Err(io::Error::other("not a plain relative path"));
        };
        folder = open_at(folder.as_raw_fd(), part.as_bytes(), flags | libc::O_NOFOLLOW)?;
    }
    Ok(folder)
}

fn open_at(dir: libc::c_int, name: &[u8], flags: libc::c_int) -> io::Result<OwnedFd> {
    let name = CString::new(name)?;
    // SAFETY: `name` is NUL-terminated; the returned descriptor is owned from here on.
    let fd = unsafe { libc::openat(dir, name.as_ptr(), flags) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just opened and nothing else owns it.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

impl GuardReport {
    /// The lines the model reads, after the exit code: one per entry renamed aside.
    pub fn notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = self.quarantined.iter().map(note).collect();
        if let Some(why) = &self.incomplete {
            notes.push(format!(
                "note: {why}; .git entries there were not made read-only during this run nor checked after it"
            ));
        }
        notes
    }

    /// `structuredContent`'s `quarantined` (and `guard_incomplete`), when there is any.
    pub fn structured(&self) -> Vec<(&'static str, serde_json::Value)> {
        let mut fields = Vec::new();
        if !self.quarantined.is_empty() {
            let list = serde_json::to_value(&self.quarantined).unwrap_or_default();
            fields.push(("quarantined", list));
        }
        if let Some(why) = &self.incomplete {
            fields.push(("guard_incomplete", serde_json::Value::String(why.clone())));
        }
        fields
    }
}

fn note(entry: &Quarantined) -> String {
    match (&entry.moved_to, &entry.error) {
        (Some(moved), _) => format!(
            "QUARANTINED {path}: {reason}. It was renamed to {moved} (nothing was deleted) and \
             the user should know. If they trust it, they restore it outside the sandbox with: \
             mv '{moved}' '{path}'",
            path = entry.path,
            reason = entry.reason,
        ),
        (None, error) => format!(
            "WARNING {path}: {reason}, and it could NOT be renamed aside ({error}). The user \
             should look at it before running git in that folder.",
            path = entry.path,
            reason = entry.reason,
            error = error.as_deref().unwrap_or("unknown error"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_renamed_aside_next_to_itself_never_over_another() -> io::Result<()> {
        let workspace = tempfile::tempdir()?;
        let lib = workspace.path().join("lib");
        std::fs::create_dir_all(lib.join(".git"))?;
        std::fs::create_dir(lib.join(".git.quarantined-by-preflight-1"))?;
        let moved = rename_aside(workspace.path(), Path::new("lib/.git"))?;
        assert_eq!(moved, "lib/.git.quarantined-by-preflight-2");
        assert!(!lib.join(".git").exists() && lib.join(".git.quarantined-by-preflight-1").is_dir());
        Ok(())
    }

    #[test]
    fn a_link_on_the_way_is_not_followed() -> io::Result<()> {
        let workspace = tempfile::tempdir()?;
        let elsewhere = tempfile::tempdir()?;
        std::fs::create_dir(elsewhere.path().join(".git"))?;
        std::os::unix::fs::symlink(elsewhere.path(), workspace.path().join("lib"))?;
        assert!(rename_aside(workspace.path(), Path::new("lib/.git")).is_err());
        assert!(elsewhere.path().join(".git").is_dir());
        Ok(())
    }
}
