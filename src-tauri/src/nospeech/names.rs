//! The names the stand-in's files and marker variable go by, and how names are made: a
//! file's last part, a short digest, a staging name beside a final place.

use std::path::Path;

pub(super) const STUB_NAME: &str = "libpreflight-nospeech.so";
/// The dynamic linker's verdict for one set of programs (`linker::Verdict`).
pub(super) const VERDICT_PREFIX: &str = "verified-";
pub(super) const VERDICT_HEADER: &str = "preflight-nospeech 2";
/// Set on the programs the check traces: should a loader run one instead of tracing it, this
/// program exits at once rather than check (and start) again.
pub(super) const CHECKING: &str = "PREFLIGHT_NOSPEECH_CHECKING";

pub(super) fn file_name(path: &Path) -> Option<String> {
    Some(path.file_name()?.to_string_lossy().into_owned())
}

/// The first 16 hex digits of `bytes`' SHA-256: enough to tell builds and program sets apart.
pub(super) fn short_digest(bytes: &[u8]) -> String {
    let mut digest = preflight_embedded::catalog::sha256_hex(bytes).unwrap_or_default();
    digest.truncate(16);
    digest
}

/// A name for a file or folder being built beside its final place, unique to this process
/// and moment (two instances may share one cache across PID namespaces).
pub(super) fn staging_name(final_name: &str) -> String {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |time| time.subsec_nanos());
    let count = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!(".{final_name}.{}.{nanos}.{count}", std::process::id())
}
