//! The bench's arguments: `--turns N --chats N --seed N --kills N --keep`.

use anyhow::Context;

#[derive(Debug, Clone, Copy)]
pub struct Args {
    pub turns: usize,
    pub chats: usize,
    pub seed: u64,
    pub kills: usize,
    /// Keep the run's folder (the data folder, the workspaces) to look at afterwards.
    pub keep: bool,
}

pub fn parse_args() -> anyhow::Result<Args> {
    let mut args = Args { turns: 2000, chats: 20, seed: 53, kills: usize::MAX, keep: false };
    let mut words = std::env::args().skip(1);
    while let Some(word) = words.next() {
        let mut value = || -> anyhow::Result<u64> {
            let text = words.next().with_context(|| format!("{word} needs a number"))?;
            text.parse().with_context(|| format!("{word} {text}: not a number"))
        };
        match word.as_str() {
            "--turns" => args.turns = value()? as usize,
            "--chats" => args.chats = value()? as usize,
            "--seed" => args.seed = value()?,
            "--kills" => args.kills = value()? as usize,
            "--keep" => args.keep = true,
            "--bench" => {} // what `cargo bench` passes to every bench binary
            other => {
                anyhow::bail!("unknown argument {other}: --turns N --chats N --seed N --kills N")
            }
        }
    }
    if args.kills == usize::MAX {
        args.kills = (args.turns / 100).max(2);
    }
    anyhow::ensure!(args.turns > 0 && args.chats > 0, "--turns and --chats must be positive");
    Ok(args)
}
