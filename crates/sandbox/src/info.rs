//! `sandbox_info`'s result and the venv's package list. The list is read here, in Rust, from
//! the `*.dist-info/METADATA` files of the venv's `site-packages`: a read-only view runs no
//! code of the venv (a `.pth` file or a rewritten pip there would run with it).

use crate::confine::Jail;
use crate::venv::{self, Python};
use rmcp::model::{CallToolResult, ContentBlock};
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::fs::File;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

/// At most this many entries of `site-packages` are looked at.
const MAX_ENTRIES: usize = 10_000;
/// At most this many bytes of one `METADATA` are read (its header comes first).
const MAX_METADATA_BYTES: u64 = 64 * 1024;

/// One installed distribution, as `pip list --format=json` gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Package {
    pub name: String,
    pub version: String,
}

/// The distributions installed in `venv` (the `Name` and `Version` of each
/// `lib/python*/site-packages/*.dist-info/METADATA`, or `*.egg-info/PKG-INFO` of a legacy
/// `setup.py install`), sorted by name; `None` without a `site-packages`. Links are never
/// followed and every read is capped.
pub fn installed(venv: &Path) -> Option<Vec<Package>> {
    let site = site_packages(venv)?;
    let entries = std::fs::read_dir(&site).ok()?;
    let metadata_file = |name: &str| match name {
        _ if name.ends_with(".dist-info") => Some("METADATA"),
        _ if name.ends_with(".egg-info") => Some("PKG-INFO"),
        _ => None,
    };
    let mut packages: Vec<Package> = entries
        .take(MAX_ENTRIES)
        .filter_map(|entry| entry.ok())
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|entry| {
            let file = metadata_file(&entry.file_name().to_string_lossy())?;
            metadata_package(&entry.path().join(file))
        })
        .collect();
    packages.sort_by_key(|p| p.name.to_lowercase());
    Some(packages)
}

/// `venv/lib/python3.X/site-packages`, each step a real folder (not a link).
fn site_packages(venv: &Path) -> Option<PathBuf> {
    let real = |path: &Path| std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir());
    let lib = venv.join("lib");
    if !real(venv) || !real(&lib) {
        return None;
    }
    let entries = std::fs::read_dir(&lib).ok()?.take(MAX_ENTRIES).filter_map(|e| e.ok());
    let mut found = entries
        .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
        .map(|e| e.path().join("site-packages"))
        .filter(|site| real(site.parent().unwrap_or(site)) && real(site));
    found.next()
}

/// The `Name` and `Version` of one `METADATA` file: a regular file opened without following a
/// link (nor waiting on a fifo), its header read up to the cap.
fn metadata_package(path: &Path) -> Option<Package> {
    let mut options = File::options();
    options.read(true).custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = options.open(path).ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_METADATA_BYTES).read_to_string(&mut text).ok()?;
    let header = text.lines().take_while(|line| !line.trim().is_empty());
    let (mut name, mut version) = (None, None);
    for line in header {
        if let Some(value) = line.strip_prefix("Name:") {
            name.get_or_insert_with(|| value.trim().to_string());
        } else if let Some(value) = line.strip_prefix("Version:") {
            version.get_or_insert_with(|| value.trim().to_string());
        }
    }
    Some(Package { name: name.filter(|n| !n.is_empty())?, version: version? })
}

/// Packages in `after` that are new or at another version than in `before`.
pub fn changed(before: &[Package], after: &[Package]) -> Vec<Package> {
    after.iter().filter(|p| !before.contains(p)).cloned().collect()
}

/// `six 1.16.0, tiny 0.1.0`.
pub fn names_and_versions(packages: &[Package]) -> String {
    let words: Vec<String> = packages.iter().map(|p| format!("{} {}", p.name, p.version)).collect();
    words.join(", ")
}

/// Where the workspace's venv stands with this sandbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    /// None yet: the first run makes it.
    Absent,
    /// Made (or adopted) by this sandbox: used.
    Ours,
    /// Not recorded, but an earlier Preflight's: used once the user adopts it.
    Adoptable,
    /// Not recorded and not an earlier Preflight's, with why: never used.
    Foreign(String),
}

/// The `sandbox_info` result: text in plain words and the same facts structured. `version`
/// is the interpreter's, `venv` the workspace's venv folder (`venv_ours` when this sandbox
/// made it) and `packages` what its `site-packages` holds.
pub fn sandbox_info(
    jail: &Jail,
    python: &Python,
    version: Option<String>,
    venv: &Path,
    standing: &Standing,
    packages: Option<Vec<Package>>,
) -> CallToolResult {
    let venv_exists = venv::venv_python(venv).exists();
    let mut text = String::new();
    if let Some(banner) = jail.result_banner() {
        text.push_str(&format!("{banner}\n"));
    }
    text.push_str(&format!("Confinement: {}\n", jail.describe()));
    let shown_version = version.as_deref().unwrap_or("unknown (it did not run)");
    text.push_str(&format!(
        "Python: {} ({}), version {shown_version}\n",
        python.interpreter.display(),
        python.chosen_because
    ));
    let state = match standing {
        Standing::Ours => "exists".to_owned(),
        Standing::Adoptable => "NOT USED YET: not recorded by this sandbox, but it looks like a venv an earlier Preflight made; the user can adopt it in the window (\"Use this environment\")".to_owned(),
        Standing::Foreign(why) => format!("NOT USED: it was not made by this sandbox (it came with the workspace): {why}"),
        Standing::Absent => "not created yet: made on the first run".to_owned(),
    };
    text.push_str(&format!("Venv: {} ({state})\n", venv.display()));
    let listed = packages.as_deref().map(names_and_versions);
    text.push_str(&format!(
        "Installed packages: {}\n",
        listed.as_deref().unwrap_or("none (no venv yet)")
    ));
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(json!({
        "confined": jail.is_confined(),
        "confinement": jail.describe(),
        "network": jail.network,
        "limits": jail.limits.describe(),
        "python": {"interpreter": python.interpreter, "chosen_because": python.chosen_because, "version": version},
        "venv": {
            "path": venv,
            "exists": venv_exists,
            "ours": *standing == Standing::Ours,
            "adoptable": *standing == Standing::Adoptable,
            "refused_because": match standing { Standing::Foreign(why) => Some(why), _ => None },
        },
        "packages": packages.unwrap_or_default(),
    }));
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(name: &str, version: &str) -> Package {
        Package { name: name.into(), version: version.into() }
    }

    #[test]
    fn installed_packages_are_read_from_their_metadata_without_links() {
        let dir = tempfile::tempdir().unwrap();
        let venv = dir.path().join("venv");
        let site = venv.join("lib/python3.11/site-packages");
        let write = |folder: &str, text: &str| {
            std::fs::create_dir_all(site.join(folder)).unwrap();
            std::fs::write(site.join(folder).join("METADATA"), text).unwrap();
        };
        write(
            "six-1.16.0.dist-info",
            "Metadata-Version: 2.1\nName: six\nVersion: 1.16.0\n\nName: body\n",
        );
        write("Pip-23.0.1.dist-info", "Name: pip\nVersion: 23.0.1\n");
        write("broken.dist-info", "Name: broken\n");
        std::fs::create_dir_all(site.join("legacy-1.0-py3.11.egg-info")).unwrap();
        std::fs::write(
            site.join("legacy-1.0-py3.11.egg-info/PKG-INFO"),
            "Name: legacy\nVersion: 1.0\n",
        )
        .unwrap();
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("METADATA"), "Name: linked\nVersion: 9\n").unwrap();
        std::os::unix::fs::symlink(&outside, site.join("linked-9.dist-info")).unwrap();
        std::fs::create_dir_all(site.join("fifo-1.dist-info")).unwrap();
        let fifo = std::ffi::CString::new(
            site.join("fifo-1.dist-info/METADATA").into_os_string().into_encoded_bytes(),
        )
        .unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
        let listed = installed(&venv).unwrap();
        assert_eq!(names_and_versions(&listed), "legacy 1.0, pip 23.0.1, six 1.16.0");
        assert_eq!(installed(&dir.path().join("none")), None);
    }

    #[test]
    fn new_and_upgraded_packages_are_reported() {
        let before = [package("pip", "23.0.1"), package("six", "1.15.0")];
        let after = [package("pip", "23.0.1"), package("six", "1.16.0"), package("tiny", "0.1.0")];
        let changed = changed(&before, &after);
        assert_eq!(names_and_versions(&changed), "six 1.16.0, tiny 0.1.0");
        assert!(super::changed(&after, &after).is_empty());
    }
}
