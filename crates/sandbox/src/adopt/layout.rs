//! The layout of a venv an earlier Preflight made, checked in Rust without following a link:
//! `pyvenv.cfg` naming the allowed interpreter, `bin/python*` links ending at it, launchers
//! only among `bin`'s programs, no link elsewhere but `lib64 -> lib`, no special file, hard
//! link, set-uid bit or file of another user anywhere. Answers the `site-packages` folder
//! that the interpreter then compares with its wheels.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// More entries than this is not a venv we would take on trust: the walk stops and refuses.
const MAX_ENTRIES: usize = 200_000;

/// The folders a jailed command's `PATH` searches after the venv's `bin`: a venv program
/// with the name of one of theirs would run in its place.
const SYSTEM_BIN: [&str; 6] =
    ["/usr/local/bin", "/usr/bin", "/bin", "/usr/local/sbin", "/usr/sbin", "/sbin"];

/// What the venv must match.
pub struct Expected<'a> {
    pub venv: &'a Path,
    pub workspace: &'a Path,
    /// The allowed interpreter, canonical.
    pub interpreter: &'a Path,
    /// Its version (`3.11.2`).
    pub version: &'a str,
}

/// The venv's `site-packages` when its layout is an earlier Preflight's; else why not.
pub fn check(expected: &Expected) -> Result<PathBuf, String> {
    let venv = expected.venv;
    real_folder(venv.parent().unwrap_or(venv))?;
    real_folder(venv)?;
    check_config(expected)?;
    walk(venv)?;
    check_bin(expected)?;
    let minor = minor_of(expected.version);
    let lib = venv.join("lib");
    let names = listing(&lib)?;
    if names != [format!("python{minor}")] {
        return Err(format!("{} should hold only python{minor} (found {names:?})", lib.display()));
    }
    let python_lib = lib.join(format!("python{minor}"));
    if listing(&python_lib)? != ["site-packages"] {
        return Err(format!("{} should hold only site-packages", python_lib.display()));
    }
    Ok(python_lib.join("site-packages"))
}

fn real_folder(folder: &Path) -> Result<(), String> {
    match std::fs::symlink_metadata(folder) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => Err(format!("{} is not a real folder", folder.display())),
        Err(e) => Err(format!("{} cannot be read: {e}", folder.display())),
    }
}

fn listing(folder: &Path) -> Result<Vec<String>, String> {
    real_folder(folder)?;
    let read = std::fs::read_dir(folder).map_err(|e| format!("{}: {e}", folder.display()))?;
    let mut names: Vec<String> =
        read.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    Ok(names)
}

/// `pyvenv.cfg`: the keys `python -m venv` writes, `home` the interpreter's folder, no
/// system site-packages, the interpreter's version.
fn check_config(expected: &Expected) -> Result<(), String> {
    let file = expected.venv.join("pyvenv.cfg");
    let meta = std::fs::symlink_metadata(&file).map_err(|e| format!("no pyvenv.cfg: {e}"))?;
    if !meta.is_file() || meta.len() > 4096 {
        return Err("pyvenv.cfg is not a small regular file".into());
    }
    let text = std::fs::read_to_string(&file).map_err(|e| format!("pyvenv.cfg: {e}"))?;
    let folder = expected.interpreter.parent().unwrap_or(Path::new("/"));
    let mut keys = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let (key, value) = line.split_once('=').ok_or(format!("pyvenv.cfg line {line:?}"))?;
        let (key, value) = (key.trim(), value.trim());
        let fits = match key {
            "home" => same_file(Path::new(value), folder),
            "include-system-site-packages" => value == "false",
            "version" | "version_info" => minor_of(value) == minor_of(expected.version),
            "executable" => same_file(Path::new(value), expected.interpreter),
            "command" | "prompt" => true,
            _ => false,
        };
        // Python reads the last of a repeated key, and keys in any case: one of each, as written.
        if !fits || keys.contains(&key) {
            return Err(format!("pyvenv.cfg says {line:?}, which Preflight's venv never did"));
        }
        keys.push(key);
    }
    match keys.contains(&"home") {
        true => Ok(()),
        false => Err(format!("pyvenv.cfg names no home (it should be {})", folder.display())),
    }
}

/// `3.11` of `3.11.2`.
fn minor_of(version: &str) -> String {
    version.split('.').take(2).collect::<Vec<_>>().join(".")
}

fn same_file(path: &Path, canonical: &Path) -> bool {
    path.is_absolute() && path.canonicalize().is_ok_and(|p| p == canonical)
}

/// Every entry, no link followed: links only where a venv has them, nothing special.
fn walk(venv: &Path) -> Result<(), String> {
    // SAFETY: geteuid(2) has no preconditions.
    let uid = unsafe { libc::geteuid() };
    let root = std::fs::symlink_metadata(venv).map_err(|e| format!("{}: {e}", venv.display()))?;
    check_entry(venv, venv, &root, uid)?;
    let mut pending = vec![venv.to_path_buf()];
    let mut seen = 0usize;
    while let Some(folder) = pending.pop() {
        let read = std::fs::read_dir(&folder).map_err(|e| format!("{}: {e}", folder.display()))?;
        for entry in read {
            let path = entry.map_err(|e| format!("{}: {e}", folder.display()))?.path();
            seen += 1;
            if seen > MAX_ENTRIES {
                return Err(format!("it holds more than {MAX_ENTRIES} files"));
            }
            let meta =
                std::fs::symlink_metadata(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            check_entry(venv, &path, &meta, uid)?;
            if meta.is_dir() {
                pending.push(path);
            }
        }
    }
    Ok(())
}

fn check_entry(venv: &Path, path: &Path, meta: &std::fs::Metadata, uid: u32) -> Result<(), String> {
    let shown = path.strip_prefix(venv).unwrap_or(path).display();
    if meta.uid() != uid {
        return Err(format!("{shown} belongs to another user"));
    }
    if meta.file_type().is_symlink() {
        return match allowed_link(venv, path) {
            true => Ok(()),
            false => Err(format!(
                "{shown} is a symbolic link (to {}), where Preflight's venv has none",
                target(path)
            )),
        };
    }
    if meta.permissions().mode() & 0o6000 != 0 {
        return Err(format!("{shown} is set-uid or set-gid"));
    }
    if meta.is_file() && meta.nlink() > 1 {
        return Err(format!("{shown} is a hard link to another file"));
    }
    match meta.is_file() || meta.is_dir() {
        true => Ok(()),
        false => Err(format!("{shown} is not a file or a folder (a device, FIFO or socket)")),
    }
}

fn target(link: &Path) -> String {
    std::fs::read_link(link).map(|t| t.display().to_string()).unwrap_or_else(|_| "?".into())
}

/// `lib64 -> lib`, and the python links in `bin` (checked for their target in [`check_bin`]).
fn allowed_link(venv: &Path, path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let parent = path.parent().unwrap_or(venv);
    (parent == venv && name == "lib64" && target(path) == "lib")
        || (parent == venv.join("bin") && is_python_name(name))
}

/// `python`, `python3`, `python3.11`.
fn is_python_name(name: &str) -> bool {
    let Some(rest) = name.strip_prefix("python") else { return false };
    let digits = |s: &str| !s.is_empty() && s.chars().all(|c| c.is_ascii_digit());
    match rest.split_once('.') {
        None => rest.is_empty() || digits(rest),
        Some((major, minor)) => digits(major) && digits(minor),
    }
}

/// `bin`: `python` resolves to the interpreter through its sibling links; every executable
/// else is a launcher of this venv's python that shadows no system program.
fn check_bin(expected: &Expected) -> Result<(), String> {
    let bin = expected.venv.join("bin");
    let names = listing(&bin)?;
    if !names.iter().any(|n| n == "python") {
        return Err("bin/python is missing".into());
    }
    for name in &names {
        let path = bin.join(name);
        let meta = std::fs::symlink_metadata(&path).map_err(|e| format!("bin/{name}: {e}"))?;
        if meta.file_type().is_symlink() {
            python_link(&bin, name, expected)?;
        } else if is_python_name(name) {
            return Err(format!("bin/{name} is not a link to the interpreter"));
        } else if meta.is_file() && meta.permissions().mode() & 0o111 != 0 {
            launcher(&path, name, expected.venv)?;
        }
    }
    Ok(())
}

/// A python link: to a sibling python name, or (absolute, outside the workspace) the
/// interpreter; followed at most four steps.
fn python_link(bin: &Path, name: &str, expected: &Expected) -> Result<(), String> {
    let mut current = name.to_owned();
    for _ in 0..4 {
        let link = bin.join(&current);
        let to = std::fs::read_link(&link).map_err(|_| format!("bin/{current} is not a link"))?;
        if to.is_absolute() {
            let inside = to.starts_with(expected.workspace);
            return match !inside && same_file(&to, expected.interpreter) {
                true => Ok(()),
                false => Err(format!(
                    "bin/{current} points at {}, not the interpreter {}",
                    to.display(),
                    expected.interpreter.display()
                )),
            };
        }
        let sibling = to.to_str().filter(|t| is_python_name(t));
        current = sibling.ok_or(format!("bin/{current} points at {}", to.display()))?.to_owned();
    }
    Err(format!("bin/{name} is a chain of links that does not end"))
}

/// An executable in `bin`: `#!{venv}/bin/python…` first, and no system program's name
/// (pip's launchers may, when they hold pip's own text).
fn launcher(path: &Path, name: &str, venv: &Path) -> Result<(), String> {
    let text = std::fs::read(path).map_err(|e| format!("bin/{name}: {e}"))?;
    let first_line = text.split(|b| *b == b'\n').next().unwrap_or_default();
    let body = text.get(first_line.len() + 1..).unwrap_or_default();
    let first = String::from_utf8_lossy(first_line);
    let interpreter = first.strip_prefix("#!").map(Path::new);
    let ours = interpreter.is_some_and(|p| {
        p.parent() == Some(&venv.join("bin"))
            && p.file_name().and_then(|n| n.to_str()).is_some_and(is_python_name)
    });
    if !ours {
        return Err(format!(
            "bin/{name} is a program that does not run this venv's python ({first:?})"
        ));
    }
    let pips_own = name.starts_with("pip") && body == PIP_LAUNCHER.as_bytes();
    if !pips_own && SYSTEM_BIN.iter().any(|dir| Path::new(dir).join(name).exists()) {
        return Err(format!("bin/{name} would run in place of the system's {name}"));
    }
    Ok(())
}

/// pip's console-script launcher after its `#!` line, as `python -m venv` writes it.
const PIP_LAUNCHER: &str = "# -*- coding: utf-8 -*-
import re
import sys
from pip._internal.cli.main import main
if __name__ == '__main__':
    sys.argv[0] = re.sub(r'(-script\\.pyw|\\.exe)?$', '', sys.argv[0])
    sys.exit(main())
";
