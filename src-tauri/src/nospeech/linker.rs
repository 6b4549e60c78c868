//! The dynamic linker's check of the stand-in (`ldd -r`'s method: `LD_TRACE_LOADED_OBJECTS`
//! with `LD_BIND_NOW`, no code run) and the verdict kept in the folder for one set of
//! programs, stamped with what every checked object was, so a rebuild or an upgrade is checked
//! again.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use crate::nospeech::library_path::{join_entries, library_path, LIBRARY_PATH};
use crate::nospeech::names::{short_digest, CHECKING, VERDICT_HEADER, VERDICT_PREFIX};
use crate::nospeech::refusal::Refusal;

/// One program's check; a linker that traces takes milliseconds.
const CHECK_TIMEOUT: Duration = Duration::from_secs(10);

/// Asks the dynamic linker to load and bind each program with `dir` first on the library path,
/// without running it. The flite names must resolve into `dir`, and any unresolved symbol or
/// missing library refuses the stand-in.
pub(super) fn check(dir: &Path, programs: &[PathBuf]) -> Result<Verdict, Refusal> {
    let library_path = join_entries([dir.to_path_buf()].into_iter().chain(library_path()))
        .ok_or(Refusal::LibraryPathFull)?;
    let mut covered = programs.to_vec();
    for program in programs {
        let refused =
            |why: &str| Refusal::LinkerRefused { program: program.clone(), why: why.to_owned() };
        let text = trace(program, &library_path)?;
        let problem = text.lines().find(|line| {
            ["undefined symbol", "not found", "symbol lookup error", "error while loading"]
                .iter()
                .any(|sign| line.contains(sign))
        });
        if let Some(line) = problem {
            return Err(refused(line.trim()));
        }
        // Lines read `\tname => /path (0x…)`.
        let resolved: Vec<(&str, PathBuf)> = text
            .lines()
            .filter_map(|line| line.split_once(" => "))
            .filter_map(|(name, rest)| Some((name.trim(), PathBuf::from(rest.split_once(" (")?.0))))
            .collect();
        if !resolved
            .iter()
            .any(|(name, path)| name.starts_with("libflite") && path.starts_with(dir))
        {
            return Err(refused("no flite library resolved to the stand-in"));
        }
        if let Some((name, path)) = resolved
            .iter()
            .find(|(name, path)| name.starts_with("libflite") && !path.starts_with(dir))
        {
            return Err(refused(&format!("{name} resolved to {}", path.display())));
        }
        covered.extend(
            resolved.into_iter().map(|(_, path)| path).filter(|path| !path.starts_with(dir)),
        );
    }
    covered.sort();
    covered.dedup();
    Ok(Verdict { covered: covered.into_iter().map(|path| (Stamp::of(&path), path)).collect() })
}

/// The dynamic linker's listing of `program` with `library_path`, stdout and stderr.
pub(super) fn trace(program: &Path, library_path: &OsString) -> Result<String, Refusal> {
    let failed = |why: String| Refusal::CheckFailed { program: program.to_path_buf(), why };
    let mut child = Command::new(program)
        .env(LIBRARY_PATH, library_path)
        .env("LD_TRACE_LOADED_OBJECTS", "1")
        .env("LD_BIND_NOW", "1")
        .env("LD_WARN", "1")
        .env(CHECKING, "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|error| failed(error.to_string()))?;
    let deadline = Instant::now() + CHECK_TIMEOUT;
    // The listing is a few kB: the pipes cannot fill before the child exits.
    while child.try_wait().map_err(|error| failed(error.to_string()))?.is_none() {
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return Err(failed(format!("no answer in {CHECK_TIMEOUT:?}")));
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let output = child.wait_with_output().map_err(|error| failed(error.to_string()))?;
    if !output.status.success() {
        return Err(failed(format!("the linker's listing failed ({})", output.status)));
    }
    Ok(format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

/// The objects a passed check covered (the programs and every library they load), each with
/// its stamp then.
pub(super) struct Verdict {
    pub(super) covered: Vec<(Option<Stamp>, PathBuf)>,
}

/// What changes when a file is replaced or rewritten: size, modification and change times
/// (a package install sets the latter even when it keeps the packaged mtime), inode.
#[derive(PartialEq, Eq, Clone, Copy, Debug)]
pub(super) struct Stamp {
    len: u64,
    modified_ns: i128,
    changed_ns: i128,
    inode: u64,
}

impl Stamp {
    pub(super) fn of(path: &Path) -> Option<Stamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::metadata(path).ok()?;
        let ns = |seconds: i64, nanos: i64| i128::from(seconds) * 1_000_000_000 + i128::from(nanos);
        Some(Stamp {
            len: metadata.len(),
            modified_ns: ns(metadata.mtime(), metadata.mtime_nsec()),
            changed_ns: ns(metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
        })
    }

    pub(super) fn parse(fields: &[&str]) -> Option<Stamp> {
        let [len, modified_ns, changed_ns, inode] = fields else { return None };
        Some(Stamp {
            len: len.parse().ok()?,
            modified_ns: modified_ns.parse().ok()?,
            changed_ns: changed_ns.parse().ok()?,
            inode: inode.parse().ok()?,
        })
    }
}

impl Verdict {
    /// The verdict's file in `dir` for `programs`: one per set, so two builds of the app
    /// sharing a cache do not overwrite each other's.
    pub(super) fn file(dir: &Path, programs: &[PathBuf]) -> PathBuf {
        let names: Vec<String> = programs.iter().map(|path| path.display().to_string()).collect();
        dir.join(format!("{VERDICT_PREFIX}{}", short_digest(names.join("\n").as_bytes())))
    }

    pub(super) fn read(dir: &Path, programs: &[PathBuf]) -> Option<Verdict> {
        let text = std::fs::read_to_string(Verdict::file(dir, programs)).ok()?;
        let mut lines = text.lines();
        if lines.next() != Some(VERDICT_HEADER) {
            return None;
        }
        let covered = lines
            .map(|line| {
                let fields: Vec<&str> = line.splitn(5, '\t').collect();
                let (path, stamp) = fields.split_last()?;
                Some((Some(Stamp::parse(stamp)?), PathBuf::from(path)))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Verdict { covered })
    }

    /// Whether it names every program and nothing it covered has changed since.
    pub(super) fn covers(&self, programs: &[PathBuf]) -> bool {
        programs.iter().all(|program| self.covered.iter().any(|(_, path)| path == program))
            && self.covered.iter().all(|(stamp, path)| stamp.is_some() && Stamp::of(path) == *stamp)
    }

    /// Written whole (aside, then renamed into place), for the user alone.
    pub(super) fn write(&self, dir: &Path, programs: &[PathBuf]) -> Result<(), Refusal> {
        let mut text = format!("{VERDICT_HEADER}\n");
        for (stamp, path) in &self.covered {
            let Some(Stamp { len, modified_ns, changed_ns, inode }) = stamp else {
                return Err(Refusal::Vanished { path: path.clone() });
            };
            text.push_str(&format!(
                "{len}\t{modified_ns}\t{changed_ns}\t{inode}\t{}\n",
                path.display()
            ));
        }
        let file = Verdict::file(dir, programs);
        preflight_files::write_atomic_with(
            &file,
            text.as_bytes(),
            preflight_files::Access::OwnerOnly,
        )?;
        Ok(())
    }
}
