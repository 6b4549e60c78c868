//! This process's `LD_LIBRARY_PATH`, read as entries and joined again: the variable the
//! stand-in's folder goes first on.

use std::ffi::OsString;
use std::path::PathBuf;

pub(super) const LIBRARY_PATH: &str = "LD_LIBRARY_PATH";

/// This process's `LD_LIBRARY_PATH` entries. Empty entries are dropped: the dynamic linker
/// reads one as the current folder, which must never creep in through this module.
pub(super) fn library_path() -> Vec<PathBuf> {
    entries(std::env::var_os(LIBRARY_PATH).as_deref())
}

pub(super) fn entries(value: Option<&std::ffi::OsStr>) -> Vec<PathBuf> {
    value
        .into_iter()
        .flat_map(std::env::split_paths)
        .filter(|path| !path.as_os_str().is_empty())
        .collect()
}

/// `None` for no entries.
pub(super) fn join_entries(entries: impl IntoIterator<Item = PathBuf>) -> Option<OsString> {
    let entries: Vec<PathBuf> = entries.into_iter().collect();
    if entries.is_empty() {
        return None;
    }
    std::env::join_paths(entries).ok()
}
