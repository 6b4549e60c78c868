//! The bearer token of the headless API: `$PREFLIGHT_HOME/api-token`, created 0600 on first
//! start and reused afterwards.
//!
//! A token file others may read is refused, not repaired: its token may already have been
//! copied, so quietly narrowing the mode would keep a leaked token in use, and quietly
//! replacing it would lock out the clients holding it. The user chooses (delete it for a
//! new token, or `chmod 600` it to keep this one). Two first starts racing on one home
//! create the file with `preflight_files::write_new`: exactly one token is written and the
//! other start reads it.

use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use anyhow::{bail, Context};
use preflight_files::Access;

/// Reads the token file, creating it (mode 0600, 256 random bits as hex) when absent.
pub fn load_or_create(path: &Path) -> anyhow::Result<String> {
    if let Some(token) = read_existing(path)? {
        return Ok(token);
    }
    let token = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    match preflight_files::write_new(path, token.as_bytes(), Access::OwnerOnly) {
        Ok(()) => Ok(token),
        // Another first start won the race: its token is the one.
        Err(error) if error.is_already_exists() => read_existing(path)?
            .with_context(|| format!("{} vanished while it was created", path.display())),
        Err(error) => Err(error).context("creating the API token"),
    }
}

/// The token in `path`; `None` when there is no file. A file that group or others may
/// read, or an empty one, is an error saying what to do.
fn read_existing(path: &Path) -> anyhow::Result<Option<String>> {
    let mut file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    };
    let metadata = file.metadata().with_context(|| format!("reading {}", path.display()))?;
    let mode = metadata.permissions().mode() & 0o777;
    if mode & 0o077 != 0 {
        bail!(
            "{} has mode {mode:04o}: other users may have read the token. Delete it to get a \
             new token, or `chmod 600` it to keep this one",
            path.display()
        );
    }
    let mut text = String::new();
    file.read_to_string(&mut text).with_context(|| format!("reading {}", path.display()))?;
    match text.trim() {
        "" => bail!("{} is empty: delete it to get a new token", path.display()),
        token => Ok(Some(token.to_owned())),
    }
}

/// Compares in time independent of where the first difference is.
pub fn matches(expected: &str, given: &str) -> bool {
    let (expected, given) = (expected.as_bytes(), given.as_bytes());
    expected.len() == given.len()
        && expected.iter().zip(given).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Barrier};

    use super::*;

    /// Four first starts at the same instant, many times over: every one gets the token
    /// that ended up in the file (the black-box test starts two real servers).
    #[test]
    fn racing_first_starts_all_get_the_one_token() {
        for _ in 0..50 {
            let dir = tempfile::tempdir().unwrap();
            let path = Arc::new(dir.path().join("api-token"));
            let barrier = Arc::new(Barrier::new(4));
            let racers: Vec<_> = (0..4)
                .map(|_| {
                    let (path, barrier) = (path.clone(), barrier.clone());
                    std::thread::spawn(move || {
                        barrier.wait();
                        load_or_create(&path).map_err(|error| format!("{error:#}"))
                    })
                })
                .collect();
            let tokens: Vec<_> = racers.into_iter().map(|racer| racer.join().unwrap()).collect();
            let in_file = std::fs::read_to_string(&*path).unwrap();
            for token in tokens {
                assert_eq!(token.as_deref(), Ok(in_file.as_str()));
            }
        }
    }
}
