//! `preflight export` and `preflight import` (DESIGN §15), thin over the engine's export and
//! import, without a running engine. An export only reads: it opens the store read-only, so
//! it works beside the window or `serve`. An import writes: like every writer it takes the
//! data folder's lock first, so while the window or `serve` holds the folder it is refused
//! with who holds it (import through them instead).

use std::fs::File;
use std::io::{BufWriter, Read, Write};
use std::path::Path;

use anyhow::{anyhow, bail, Context};
use preflight_engine::home_lock::HomeLock;
use preflight_engine::lifecycle::{
    export_chat, export_chat_to_file, import_chat, ExportFormat, DATABASE_FILE,
};
use preflight_engine::store::Store;
use preflight_engine::ChatId;

use crate::home;

const EXPORT_USAGE: &str =
    "usage: preflight export CHAT_ID [--format json|markdown] [--output FILE]";
const IMPORT_USAGE: &str = "usage: preflight import FILE (- reads stdin)";

/// `preflight export CHAT_ID [--format json|markdown] [--output FILE]`: the chat's export on
/// stdout, or into FILE (whole or not at all).
pub fn export_command(args: &[String]) -> anyhow::Result<()> {
    let (chat_id, format, output) = export_args(args)?;
    let home = home::data_home()?;
    let database = home.join(DATABASE_FILE);
    if !database.is_file() {
        bail!("no chats yet: {} does not exist", database.display());
    }
    let store = Store::open_read_only(&database)?;
    match output {
        Some(path) => export_chat_to_file(&store, &chat_id, format, Path::new(&path))?,
        None => {
            let mut out = BufWriter::new(std::io::stdout().lock());
            export_chat(&store, &chat_id, format, &mut out)?;
            out.flush().context("writing stdout")?;
        }
    }
    Ok(())
}

fn export_args(args: &[String]) -> anyhow::Result<(ChatId, ExportFormat, Option<String>)> {
    let (mut chat, mut format, mut output) = (None, ExportFormat::Json, None);
    let mut args = args.iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--format" => {
                let text = args.next().ok_or_else(|| anyhow!(EXPORT_USAGE))?;
                format = ExportFormat::parse(text)
                    .ok_or_else(|| anyhow!("--format is json or markdown, not {text:?}"))?;
            }
            "--output" | "-o" => output = Some(args.next().ok_or_else(|| anyhow!(EXPORT_USAGE))?),
            text if text.starts_with('-') || chat.is_some() => bail!(EXPORT_USAGE),
            text => chat = Some(ChatId::from(text)),
        }
    }
    let chat = chat.ok_or_else(|| anyhow!(EXPORT_USAGE))?;
    Ok((chat, format, output.cloned()))
}

/// `preflight import FILE`: the export as a new chat, whose id is printed.
pub fn import_command(args: &[String]) -> anyhow::Result<()> {
    let [file] = args else { bail!(IMPORT_USAGE) };
    let mut input: Box<dyn Read> = match file.as_str() {
        "-" => Box::new(std::io::stdin().lock()),
        path => Box::new(File::open(path).with_context(|| format!("cannot read {path}"))?),
    };
    let home = home::data_home()?;
    std::fs::create_dir_all(&home)
        .with_context(|| format!("cannot create the data folder {}", home.display()))?;
    let _lock = HomeLock::acquire(&home, "preflight import").map_err(|error| {
        anyhow!("{error}. While it runs, import through it: POST /v1/chats/import, or Import in the window")
    })?;
    let store = Store::open(home.join(DATABASE_FILE))?;
    let chat = import_chat(&store, &home, &mut input)?;
    println!("{}", chat.id);
    Ok(())
}
