//! The stand-in's folder: what it must hold to be used, and how it is made. It goes first on
//! the library path of the app and WebKit's helpers, so whoever can write in it, or in a folder
//! on the way to it, runs code in the app. It is used only when it is the user's own 0700
//! folder, reached through folders only the user or root can change, holding exactly what this
//! module puts there: the library (the embedded bytes, a file no one else may write), a link
//! to it per flite name, and the linker's verdicts. A folder that differs in any way is moved
//! aside and made afresh; an unsafe way to it is refused (the real flite is used).

use std::io::ErrorKind;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::Path;

use preflight_files::{create_private_dir, Access, FileError};

use crate::nospeech::names::{file_name, staging_name, STUB_NAME, VERDICT_PREFIX};
use crate::nospeech::refusal::{Refusal, Untrusted};

/// Flite's library names all begin so; a link by such a name is one this module made.
const FLITE_PREFIX: &str = "libflite";
/// Hex digits in a verdict's name (`short_digest`).
const VERDICT_DIGITS: usize = 16;
const SETUID_SETGID_STICKY_AND_PERMISSIONS: u32 = 0o7777;
const STICKY: u32 = 0o1000;
const WRITABLE_BY_OTHERS: u32 = 0o022;

/// What an existing folder lacks: flite names without their link (a WebKit that links more).
type MissingLinks = Vec<String>;

/// Makes `dir` (in `cache`) hold exactly `stub` as [`STUB_NAME`] with a link per name in
/// `flite`, and returns once it has been seen to: made whole aside and renamed into place when
/// absent or not exactly as made, a missing link added by renaming too, so no reader ever sees
/// a half-made file. Refuses an unsafe `cache` without making anything.
pub(super) fn materialise(
    cache: &Path,
    dir: &Path,
    stub: &[u8],
    flite: &[String],
) -> Result<(), Refusal> {
    // An existing folder is left as it is: `check_way_to` judges it.
    create_private_dir(cache)?;
    check_way_to(cache).map_err(Refusal::UnsafePlace)?;
    let missing = match inspect(dir, stub, flite) {
        Ok(Some(missing)) => missing,
        Ok(None) => build(cache, dir, stub, flite)?,
        Err(why) => {
            // It is only a cache, and a verdict must not outlive what it was about.
            tracing::warn!("the silent flite's folder is made afresh: {why}");
            discard(cache, dir)?;
            build(cache, dir, stub, flite)?
        }
    };
    for name in &missing {
        link(dir, name)?;
    }
    if !missing.is_empty() {
        preflight_files::sync_dir(dir)?;
    }
    Ok(())
}

/// Whether `dir` may be used as it is now: a safe way to it, and exactly what was made.
pub(super) fn check_trusted(
    cache: &Path,
    dir: &Path,
    stub: &[u8],
    flite: &[String],
) -> Result<(), Refusal> {
    check_way_to(cache).map_err(Refusal::UnsafePlace)?;
    match inspect(dir, stub, flite).map_err(Refusal::NotAsMade)? {
        Some(missing) if missing.is_empty() => Ok(()),
        Some(missing) => {
            Err(Refusal::NotAsMade(Untrusted::NotALinkToTheLibrary { path: dir.join(&missing[0]) }))
        }
        None => Err(Refusal::NotAsMade(Untrusted::Absent { path: dir.to_path_buf() })),
    }
}

/// Builds the folder aside and renames it into place; then sees what is there (another
/// instance may have made it first). Returns the links it still lacks.
fn build(cache: &Path, dir: &Path, stub: &[u8], flite: &[String]) -> Result<MissingLinks, Refusal> {
    let staging = cache.join(staging_name(&file_name(dir).unwrap_or_default()));
    let built = make_folder(&staging, stub, flite).and_then(|()| {
        std::fs::rename(&staging, dir).map_err(|error| FileError::new(dir, error))?;
        preflight_files::sync_dir(cache)
    });
    if let Err(error) = built {
        let _ = std::fs::remove_dir_all(&staging);
        if !dir.is_dir() {
            return Err(error.into());
        }
        // Another instance made it first: what it made is inspected like any other.
    }
    match inspect(dir, stub, flite).map_err(Refusal::NotAsMade)? {
        Some(missing) => Ok(missing),
        None => Err(Refusal::NotAsMade(Untrusted::Absent { path: dir.to_path_buf() })),
    }
}

fn make_folder(staging: &Path, stub: &[u8], flite: &[String]) -> Result<(), FileError> {
    std::fs::create_dir(staging).map_err(|error| FileError::new(staging, error))?;
    // Exactly 0700 whatever the umask.
    std::fs::set_permissions(staging, std::fs::Permissions::from_mode(0o700))
        .map_err(|error| FileError::new(staging, error))?;
    preflight_files::write_atomic_with(&staging.join(STUB_NAME), stub, Access::OwnerOnly)?;
    flite.iter().try_for_each(|name| link(staging, name))?;
    preflight_files::sync_dir(staging)
}

/// Moves `dir` out of the way (a hidden name in `cache`, never on the library path) and
/// removes it; what cannot be removed (another user's entries) is left under that name.
fn discard(cache: &Path, dir: &Path) -> Result<(), FileError> {
    let aside =
        cache.join(staging_name(&format!("{}.discarded", file_name(dir).unwrap_or_default())));
    match std::fs::rename(dir, &aside) {
        Ok(()) => {}
        // Another instance moved it first.
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(()),
        Err(error) => return Err(FileError::new(dir, error)),
    }
    let removed = if aside.is_dir() && !aside.is_symlink() {
        std::fs::remove_dir_all(&aside)
    } else {
        std::fs::remove_file(&aside)
    };
    if let Err(error) = removed {
        tracing::warn!("the discarded folder {} was left: {error}", aside.display());
    }
    preflight_files::sync_dir(cache)
}

/// A link named `name` to the library in `folder`, made aside and renamed into place.
fn link(folder: &Path, name: &str) -> Result<(), FileError> {
    let target = folder.join(name);
    let staging = folder.join(staging_name(name));
    std::os::unix::fs::symlink(STUB_NAME, &staging)
        .map_err(|error| FileError::new(&staging, error))?;
    std::fs::rename(&staging, &target).map_err(|error| {
        let _ = std::fs::remove_file(&staging);
        FileError::new(&target, error)
    })
}

/// Every folder on the way to `cache`, as written and as resolved (through links), `cache`
/// included: each must be the user's or root's and writable by no one else, except a folder
/// above `cache` with the sticky bit (as `/tmp`), where others cannot rename or remove what
/// is not theirs.
fn check_way_to(cache: &Path) -> Result<(), Untrusted> {
    let unreadable = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Untrusted::Unreadable { path, source }
    };
    let resolved = std::fs::canonicalize(cache).map_err(unreadable(cache))?;
    for path in cache.ancestors().chain(resolved.ancestors()) {
        if path.as_os_str().is_empty() {
            continue;
        }
        let metadata = std::fs::metadata(path).map_err(unreadable(path))?;
        if !metadata.is_dir() {
            return Err(Untrusted::NotAFolder { path: path.to_path_buf() });
        }
        if metadata.uid() != user() && metadata.uid() != 0 {
            return Err(Untrusted::NotOurs { path: path.to_path_buf(), owner: metadata.uid() });
        }
        let mode = metadata.mode() & SETUID_SETGID_STICKY_AND_PERMISSIONS;
        let sticky_above = mode & STICKY != 0 && path != cache && path != resolved;
        if mode & WRITABLE_BY_OTHERS != 0 && !sticky_above {
            return Err(Untrusted::WritableByOthers { path: path.to_path_buf(), mode });
        }
    }
    Ok(())
}

/// `None` when `dir` does not exist; else the flite names it lacks a link for, once every
/// entry in it was found to be what this module makes.
fn inspect(dir: &Path, stub: &[u8], flite: &[String]) -> Result<Option<MissingLinks>, Untrusted> {
    let unreadable = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Untrusted::Unreadable { path, source }
    };
    let metadata = match std::fs::symlink_metadata(dir) {
        Err(error) if error.kind() == ErrorKind::NotFound => return Ok(None),
        other => other.map_err(unreadable(dir))?,
    };
    if !metadata.is_dir() {
        return Err(Untrusted::NotAFolder { path: dir.to_path_buf() });
    }
    check_ours(dir, &metadata)?;
    let mode = metadata.mode() & SETUID_SETGID_STICKY_AND_PERMISSIONS;
    if mode != 0o700 {
        return Err(Untrusted::NotPrivate { path: dir.to_path_buf(), mode });
    }
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir).map_err(unreadable(dir))? {
        let entry = entry.map_err(unreadable(dir))?;
        let path = entry.path();
        let metadata = std::fs::symlink_metadata(&path).map_err(unreadable(&path))?;
        check_ours(&path, &metadata)?;
        let name = entry.file_name().to_string_lossy().into_owned();
        check_entry(&path, &name, &metadata, stub)?;
        names.push(name);
    }
    if !names.iter().any(|name| name == STUB_NAME) {
        return Err(Untrusted::NoLibrary { path: dir.to_path_buf() });
    }
    Ok(Some(flite.iter().filter(|name| !names.contains(name)).cloned().collect()))
}

/// One entry of the folder, by its name: the library, a flite link, or a verdict.
fn check_entry(
    path: &Path,
    name: &str,
    metadata: &std::fs::Metadata,
    stub: &[u8],
) -> Result<(), Untrusted> {
    let private_file = metadata.file_type().is_file() && metadata.mode() & WRITABLE_BY_OTHERS == 0;
    if name == STUB_NAME {
        // Read only once it is known to be a file of the user's (no link followed).
        let bytes = || std::fs::read(path).ok();
        if !private_file || metadata.len() != stub.len() as u64 || bytes().as_deref() != Some(stub)
        {
            return Err(Untrusted::NotTheLibrary { path: path.to_path_buf() });
        }
    } else if name.starts_with(FLITE_PREFIX) {
        if !std::fs::read_link(path).is_ok_and(|target| target == Path::new(STUB_NAME)) {
            return Err(Untrusted::NotALinkToTheLibrary { path: path.to_path_buf() });
        }
    } else if !(is_verdict_name(name) && private_file) {
        return Err(Untrusted::Stray { path: path.to_path_buf() });
    }
    Ok(())
}

fn is_verdict_name(name: &str) -> bool {
    name.strip_prefix(VERDICT_PREFIX).is_some_and(|digest| {
        digest.len() == VERDICT_DIGITS && digest.bytes().all(|byte| byte.is_ascii_hexdigit())
    })
}

fn check_ours(path: &Path, metadata: &std::fs::Metadata) -> Result<(), Untrusted> {
    if metadata.uid() == user() {
        Ok(())
    } else {
        Err(Untrusted::NotOurs { path: path.to_path_buf(), owner: metadata.uid() })
    }
}

fn user() -> u32 {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() }
}
