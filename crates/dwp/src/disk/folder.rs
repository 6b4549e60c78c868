//! One plan folder on disk: finding it by path or name, and reading its documents with
//! their schema and structure checked (a v1 or newer file is refused, never reinterpreted).

use std::ffi::OsStr;
use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::DwpError;
use crate::rules::documents::{Manifest, PlanState, MANIFEST_SCHEMA, SPEC_VERSION, STATE_SCHEMA};
use crate::rules::structure::{is_newer_spec, manifest_problems, state_problems};

pub(crate) const STATE_FILE: &str = "state.json";
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
pub(crate) const README_FILE: &str = "README.md";
pub(crate) const PROGRESS_FILE: &str = "PROGRESS.md";
/// The finaliser's in-progress marker (`disk/finalize.rs`).
pub(crate) const FINALIZING_FILE: &str = ".finalizing.json";
/// Where plan folders live in a workspace.
pub(crate) const PLANS_DIR: &str = ".dwp/plans";
/// The most a plan document may hold: far above any real plan (a 40-task state.json is a
/// few kB), far below what a planted `/dev/zero` or a huge file would cost to read.
pub(crate) const MAX_DOCUMENT_BYTES: u64 = 4 << 20;

/// A plan folder (`…/.dwp/plans/PLAN_<slug>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFolder {
    path: PathBuf,
}

impl PlanFolder {
    /// The folder at `path`; it must hold a `state.json`.
    pub fn open(path: impl Into<PathBuf>) -> Result<PlanFolder, DwpError> {
        let path = path.into();
        check_real_folders(&path)?;
        if !path.join(STATE_FILE).is_file() {
            return Err(DwpError::NotAPlan { path });
        }
        Ok(PlanFolder { path })
    }

    /// `PLAN` as the command line takes it: a plan folder's path, or a name under
    /// `<cwd>/.dwp/plans/` with or without its `PLAN_` prefix.
    pub fn resolve(plan: &str, cwd: &Path) -> Result<PlanFolder, DwpError> {
        let as_path = cwd.join(plan);
        if as_path.join(STATE_FILE).is_file() {
            return PlanFolder::open(as_path);
        }
        let plans = cwd.join(PLANS_DIR);
        let name = if plan.starts_with("PLAN_") { plan.to_owned() } else { format!("PLAN_{plan}") };
        let under_plans = plans.join(&name);
        if under_plans.join(STATE_FILE).is_file() {
            return PlanFolder::open(under_plans);
        }
        Err(DwpError::NotAPlan {
            path: if plan.contains(['/', '\\']) { as_path } else { under_plans },
        })
    }

    pub(crate) fn new_unchecked(path: PathBuf) -> PlanFolder {
        PlanFolder { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The folder's name, `PLAN_<slug>`.
    pub fn name(&self) -> String {
        self.path.file_name().map(|name| name.to_string_lossy().into_owned()).unwrap_or_default()
    }

    pub fn file(&self, name: &str) -> PathBuf {
        self.path.join(name)
    }
}

/// `state.json` as read: its bytes' SHA-256 (what `--expected-sha256` compares) and the
/// parsed, structurally checked state.
#[derive(Debug, Clone)]
pub struct StateSnapshot {
    pub state: PlanState,
    pub sha256: String,
}

/// Hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Reads and checks `state.json`: v2 schema, every field the seed requires, no structural
/// problem. A v1 file or a newer schema is refused, never reinterpreted.
pub fn read_state(dir: &PlanFolder) -> Result<StateSnapshot, DwpError> {
    let path = dir.file(STATE_FILE);
    let bytes = read_document(&path)?;
    let sha256 = sha256_hex(&bytes);
    let state = parse_state(&path, &bytes)?;
    Ok(StateSnapshot { state, sha256 })
}

pub(crate) fn parse_state(path: &Path, bytes: &[u8]) -> Result<PlanState, DwpError> {
    let malformed = |problems: Vec<String>| DwpError::Malformed { path: path.to_owned(), problems };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|error| malformed(vec![error.to_string()]))?;
    check_schema_url(path, &value, STATE_SCHEMA)?;
    let state: PlanState =
        serde_json::from_value(value).map_err(|error| malformed(vec![error.to_string()]))?;
    let problems = state_problems(&state);
    if !problems.is_empty() {
        return Err(malformed(problems));
    }
    Ok(state)
}

/// Reads and checks `manifest.json`, refusing a plan written under a newer specification.
pub(crate) fn read_manifest(dir: &PlanFolder) -> Result<Manifest, DwpError> {
    let path = dir.file(MANIFEST_FILE);
    let bytes = read_document(&path)?;
    let malformed = |problems: Vec<String>| DwpError::Malformed { path: path.clone(), problems };
    let value: Value =
        serde_json::from_slice(&bytes).map_err(|error| malformed(vec![error.to_string()]))?;
    check_schema_url(&path, &value, MANIFEST_SCHEMA)?;
    let manifest: Manifest =
        serde_json::from_value(value).map_err(|error| malformed(vec![error.to_string()]))?;
    if is_newer_spec(&manifest.spec_version) {
        return Err(DwpError::NewerSpec { found: manifest.spec_version, ours: SPEC_VERSION });
    }
    let problems = manifest_problems(&manifest);
    if !problems.is_empty() {
        return Err(malformed(problems));
    }
    Ok(manifest)
}

fn check_schema_url(path: &Path, value: &Value, expected: &'static str) -> Result<(), DwpError> {
    match value.get("schema").and_then(Value::as_str) {
        Some(schema) if schema == expected => Ok(()),
        Some(schema) => Err(DwpError::UnsupportedSchema {
            path: path.to_owned(),
            schema: schema.to_owned(),
            expected,
        }),
        None => Err(DwpError::Malformed {
            path: path.to_owned(),
            problems: vec!["missing field `schema`".to_owned()],
        }),
    }
}

pub(crate) fn read_text(path: &Path) -> Result<String, DwpError> {
    let bytes = read_document(path)?;
    String::from_utf8(bytes).map_err(|_| DwpError::Malformed {
        path: path.to_owned(),
        problems: vec!["not UTF-8 text".to_owned()],
    })
}

/// Reads a file that may be absent.
pub(crate) fn read_optional(path: &Path) -> Result<Option<String>, DwpError> {
    match fs::symlink_metadata(path) {
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        _ => read_text(path).map(Some),
    }
}

/// A plan document's bytes: a regular file (never followed through a symbolic link, never a
/// device or a FIFO), at most `MAX_DOCUMENT_BYTES`. A workspace is untrusted: a planted
/// `manifest.json -> /dev/zero` or `-> ~/.ssh/id_ed25519` is refused, not read.
pub(crate) fn read_document(path: &Path) -> Result<Vec<u8>, DwpError> {
    let kind = fs::symlink_metadata(path).map_err(DwpError::io(path))?;
    if kind.file_type().is_symlink() {
        return Err(unsafe_path(path, "is a symbolic link"));
    }
    if !kind.is_file() {
        return Err(unsafe_path(path, "is not a regular file"));
    }
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Swapped for a link or a FIFO after the check above: refused, never followed or waited on.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(DwpError::io(path))?;
    if !file.metadata().map_err(DwpError::io(path))?.is_file() {
        return Err(unsafe_path(path, "is not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(MAX_DOCUMENT_BYTES + 1).read_to_end(&mut bytes).map_err(DwpError::io(path))?;
    if bytes.len() as u64 > MAX_DOCUMENT_BYTES {
        let why = format!("is over {} MiB", MAX_DOCUMENT_BYTES >> 20);
        return Err(DwpError::Unsafe { path: path.to_owned(), why });
    }
    Ok(bytes)
}

/// Refuses a plan folder reached through a symbolic link: `path` and every folder above it up
/// to and including `.dwp` must be real folders (or not exist yet), so `.dwp -> elsewhere`
/// never puts plan files outside the workspace. A path with no `.dwp` above it (a folder
/// named on the command line) is checked itself only.
pub(crate) fn check_real_folders(path: &Path) -> Result<(), DwpError> {
    let chain: Vec<&Path> = path.ancestors().collect();
    let below_dwp = chain.iter().position(|dir| dir.file_name() == Some(OsStr::new(".dwp")));
    let checked = below_dwp.map_or(&chain[..1], |last| &chain[..=last]);
    for dir in checked {
        if fs::symlink_metadata(dir).is_ok_and(|kind| kind.file_type().is_symlink()) {
            return Err(unsafe_path(dir, "is a symbolic link"));
        }
    }
    Ok(())
}

fn unsafe_path(path: &Path, why: &str) -> DwpError {
    DwpError::Unsafe { path: path.to_owned(), why: why.to_owned() }
}

/// Whether a finalisation was interrupted: its marker is still there (for the verifier).
pub(crate) fn is_finalizing(dir: &PlanFolder) -> bool {
    fs::symlink_metadata(dir.file(FINALIZING_FILE)).is_ok()
}

/// Pretty JSON with a final newline, as every document is written.
pub(crate) fn to_json<T: serde::Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plain data always serialises");
    text.push('\n');
    text
}
