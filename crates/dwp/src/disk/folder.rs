//! One plan folder on disk: finding it by path or name, and reading its documents with
//! their schema and structure checked. A v1 document is read as its v2 migration, in memory
//! only (`rules/migration.rs`); its bytes come along so that the writer's first write can keep
//! them (`disk/migration.rs`). Any other schema is refused, never reinterpreted.

use std::ffi::OsStr;
use std::fs;
use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::error::DwpError;
use crate::rules::documents::{Manifest, PlanState, MANIFEST_SCHEMA, SPEC_VERSION, STATE_SCHEMA};
use crate::rules::migration::{
    manifest_from_v1, state_from_v1, MANIFEST_SCHEMA_V1, STATE_SCHEMA_V1,
};
use crate::rules::structure::{is_newer_spec, manifest_problems, state_problems};

pub(crate) const STATE_FILE: &str = "state.json";
pub(crate) const MANIFEST_FILE: &str = "manifest.json";
pub(crate) const README_FILE: &str = "README.md";
pub(crate) const PROGRESS_FILE: &str = "PROGRESS.md";
/// The user's request that made the plan, written once at materialisation.
pub(crate) const PROMPTS_FILE: &str = "PROMPTS.md";
/// The finaliser's in-progress marker (`disk/finalize.rs`).
pub(crate) const FINALIZING_FILE: &str = ".finalizing.json";
/// Where the finaliser's attestation goes, inside the plan's own folder (never the
/// repository's root).
pub(crate) const ANALYSIS_DIR: &str = "analysis_results";
pub(crate) const FINALIZATION_FILE: &str = "FINALIZATION.json";
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

/// A plan document as read and checked, in its v2 shape; `v1_bytes` holds the file's bytes
/// when it is a v1 document, migrated in memory only (nothing on disk changed).
#[derive(Debug, Clone)]
pub(crate) struct Versioned<T> {
    pub(crate) document: T,
    pub(crate) v1_bytes: Option<Vec<u8>>,
}

/// Hex SHA-256 of `bytes`.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes).iter().map(|byte| format!("{byte:02x}")).collect()
}

/// Reads and checks `state.json`: every field the seed requires, no structural problem. A v1
/// file is read as its v2 migration (the file is left as it is); a newer schema is refused.
pub fn read_state(dir: &PlanFolder) -> Result<StateSnapshot, DwpError> {
    read_state_versioned(dir).map(|read| read.document)
}

/// `read_state`, saying whether the file is v1 (for the writer, which migrates it).
pub(crate) fn read_state_versioned(dir: &PlanFolder) -> Result<Versioned<StateSnapshot>, DwpError> {
    let path = dir.file(STATE_FILE);
    let bytes = read_document(&path)?;
    let sha256 = sha256_hex(&bytes);
    let Versioned { document: state, v1_bytes } = parse_state(&path, &bytes)?;
    Ok(Versioned { document: StateSnapshot { state, sha256 }, v1_bytes })
}

pub(crate) fn parse_state(path: &Path, bytes: &[u8]) -> Result<Versioned<PlanState>, DwpError> {
    let schemas = Schemas { v2: STATE_SCHEMA, v1: STATE_SCHEMA_V1 };
    let read = parse_versioned(path, bytes, schemas, state_from_v1)?;
    let problems = state_problems(&read.document);
    if !problems.is_empty() {
        return Err(DwpError::Malformed { path: path.to_owned(), problems });
    }
    Ok(read)
}

/// Reads and checks `manifest.json`, refusing a plan written under a newer specification.
pub(crate) fn read_manifest(dir: &PlanFolder) -> Result<Manifest, DwpError> {
    read_manifest_versioned(dir).map(|read| read.document)
}

/// `read_manifest`, saying whether the file is v1 (for the writer, which migrates it).
pub(crate) fn read_manifest_versioned(dir: &PlanFolder) -> Result<Versioned<Manifest>, DwpError> {
    let path = dir.file(MANIFEST_FILE);
    let bytes = read_document(&path)?;
    let schemas = Schemas { v2: MANIFEST_SCHEMA, v1: MANIFEST_SCHEMA_V1 };
    let read = parse_versioned(&path, &bytes, schemas, manifest_from_v1)?;
    let manifest = &read.document;
    if is_newer_spec(&manifest.spec_version) {
        let found = manifest.spec_version.clone();
        return Err(DwpError::NewerSpec { found, ours: SPEC_VERSION });
    }
    let problems = manifest_problems(manifest);
    if !problems.is_empty() {
        return Err(DwpError::Malformed { path, problems });
    }
    Ok(read)
}

/// The two schema URLs a document may declare.
#[derive(Debug, Clone, Copy)]
struct Schemas {
    v2: &'static str,
    v1: &'static str,
}

/// `bytes` as the v2 document: parsed as it is when it declares v2, through `from_v1` when it
/// declares v1; any other schema is refused.
fn parse_versioned<T: DeserializeOwned>(
    path: &Path,
    bytes: &[u8],
    schemas: Schemas,
    from_v1: fn(Value) -> Result<T, Vec<String>>,
) -> Result<Versioned<T>, DwpError> {
    let malformed = |problems: Vec<String>| DwpError::Malformed { path: path.to_owned(), problems };
    let value: Value =
        serde_json::from_slice(bytes).map_err(|error| malformed(vec![error.to_string()]))?;
    match value.get("schema").and_then(Value::as_str) {
        Some(schema) if schema == schemas.v2 => {
            let document = serde_json::from_value(value)
                .map_err(|error| malformed(vec![error.to_string()]))?;
            Ok(Versioned { document, v1_bytes: None })
        }
        Some(schema) if schema == schemas.v1 => {
            let document = from_v1(value).map_err(malformed)?;
            Ok(Versioned { document, v1_bytes: Some(bytes.to_vec()) })
        }
        Some(schema) => Err(DwpError::UnsupportedSchema {
            path: path.to_owned(),
            schema: schema.to_owned(),
            expected: schemas.v2,
        }),
        None => Err(malformed(vec!["missing field `schema`".to_owned()])),
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
    read_document_within(path, MAX_DOCUMENT_BYTES)
}

/// [`read_document`] with a lower cap: past `cap` bytes the file is refused, and no more
/// than `cap + 1` of its bytes were read.
pub(crate) fn read_document_within(path: &Path, cap: u64) -> Result<Vec<u8>, DwpError> {
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
    file.take(cap + 1).read_to_end(&mut bytes).map_err(DwpError::io(path))?;
    if bytes.len() as u64 > cap {
        let why = match cap >> 20 {
            0 => format!("is over {} KiB", cap >> 10),
            mib => format!("is over {mib} MiB"),
        };
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
