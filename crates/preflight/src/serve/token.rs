//! The bearer token of the headless API: `$PREFLIGHT_HOME/api-token`, created 0600 on first
//! start and reused afterwards.

use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use anyhow::{bail, Context};

/// Reads the token file, creating it (mode 0600, 256 random bits as hex) when absent.
pub fn load_or_create(path: &Path) -> anyhow::Result<String> {
    match std::fs::read_to_string(path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => bail!("{} is empty: delete it to get a new token", path.display()),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
        Err(error) => return Err(error).with_context(|| format!("reading {}", path.display())),
    }
    let token = format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple());
    let mut file = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
        .with_context(|| format!("creating {}", path.display()))?;
    file.write_all(token.as_bytes())
        .and_then(|()| file.sync_all())
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(token)
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
