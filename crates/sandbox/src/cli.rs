//! The command line: `preflight-sandbox --workspace DIR [options]`, parsed without a framework.

use crate::error::SandboxError;
use std::path::PathBuf;

pub const USAGE: &str = "\
usage: preflight-sandbox --workspace DIR [--network] [--confinement auto|bubblewrap|none]
                         [--max-processes N] [--memory-mib N] [--max-file-mib N]
                         [--python PATH] [--allow-sdists]
                         [--state-dir DIR]
       preflight-sandbox --probe
       preflight-sandbox --adopt-venv --workspace DIR [--state-dir DIR] [--python PATH]

Serves the code-sandbox MCP tools (run_command, run_python, install_packages, sandbox_info)
over stdio for the workspace DIR.
  --workspace DIR     the folder commands run in (read-write); state lives in DIR/.sandbox
  --network           commands and Python get the host's network (by default they have
                      none; --no-network, the default, is accepted). install_packages' pip
                      always has an outbound-only network of its own through pasta (passt)
  --confinement MODE  auto (default): bubblewrap when it works here, else unconfined and said
                      so; bubblewrap: refuse to start without it; none: unconfined on purpose
  --max-processes N   processes and threads a run may hold at once (default 512)
  --memory-mib N      memory a run may use, in MiB (default 2048)
  --max-file-mib N    the largest file a run may write, in MiB (default 4096)
  --python PATH       the interpreter that creates the venv (default /usr/bin/python3)
  --allow-sdists      install_packages may build source distributions (running a package's
                      setup.py, confined); by default pip installs wheels only
  --state-dir DIR     where the venvs this sandbox made are recorded, outside every
                      workspace (default $XDG_STATE_HOME/preflight/sandbox); a venv not
                      recorded there (one a repository brought) is never used
  --probe             print whether runs can be confined on this machine, as one JSON line
                      (confined true, or false with the reason), and exit
  --adopt-venv        record DIR/.sandbox/venv as this sandbox's when it is a venv an
                      earlier Preflight made (before venvs were recorded), print one JSON
                      line (adopted true, or false with the reason), and exit; only at the
                      user's word (the window's \"Use this environment\")";

/// What `--confinement` asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfinementChoice {
    /// Bubblewrap when it is installed and works, otherwise unconfined (said everywhere).
    Auto,
    /// Bubblewrap or refuse to start.
    Bubblewrap,
    /// Unconfined on purpose (benchmarks, machines without namespaces).
    None,
}

/// The parsed command line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Options {
    pub workspace: PathBuf,
    pub network: bool,
    pub confinement: ConfinementChoice,
    pub max_processes: u32,
    pub memory_mib: u64,
    /// The largest file a run may write (`RLIMIT_FSIZE`), in MiB.
    pub max_file_mib: u64,
    pub python: Option<PathBuf>,
    pub state_dir: Option<PathBuf>,
    /// pip may build source distributions (`--allow-sdists`); else wheels only.
    pub allow_sdists: bool,
}

/// What the command line asks for: serve, or print the usage.
#[derive(Debug, PartialEq, Eq)]
pub enum Command {
    Serve(Options),
    Help,
    /// Say whether bubblewrap can confine runs here, and stop.
    Probe,
    /// Adopt the workspace's unrecorded venv if it is an earlier Preflight's, and stop.
    AdoptVenv(Options),
}

/// Parses the arguments after the program name.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Command, SandboxError> {
    let mut args = args.into_iter();
    let mut workspace = None;
    let mut adopt = false;
    let mut options = Options {
        workspace: PathBuf::new(),
        network: false,
        confinement: ConfinementChoice::Auto,
        max_processes: 512,
        memory_mib: 2048,
        max_file_mib: 4096,
        python: None,
        state_dir: None,
        allow_sdists: false,
    };
    while let Some(arg) = args.next() {
        let mut value =
            |name: &str| args.next().ok_or_else(|| usage_error(format!("{name} needs a value")));
        match arg.as_str() {
            "-h" | "--help" => return Ok(Command::Help),
            "--probe" => return Ok(Command::Probe),
            "--adopt-venv" => adopt = true,
            "--workspace" => workspace = Some(PathBuf::from(value("--workspace")?)),
            "--network" => options.network = true,
            "--no-network" => options.network = false,
            "--confinement" => options.confinement = confinement(&value("--confinement")?)?,
            "--max-processes" => options.max_processes = number(&value("--max-processes")?)?,
            "--memory-mib" => options.memory_mib = number(&value("--memory-mib")?)?,
            "--max-file-mib" => options.max_file_mib = number(&value("--max-file-mib")?)?,
            "--python" => options.python = Some(PathBuf::from(value("--python")?)),
            "--state-dir" => options.state_dir = Some(PathBuf::from(value("--state-dir")?)),
            "--allow-sdists" => options.allow_sdists = true,
            other => return Err(usage_error(format!("unknown argument {other:?}"))),
        }
    }
    options.workspace = workspace.ok_or_else(|| usage_error("--workspace DIR is required"))?;
    Ok(if adopt { Command::AdoptVenv(options) } else { Command::Serve(options) })
}

fn confinement(value: &str) -> Result<ConfinementChoice, SandboxError> {
    match value {
        "auto" => Ok(ConfinementChoice::Auto),
        "bubblewrap" | "bwrap" => Ok(ConfinementChoice::Bubblewrap),
        "none" => Ok(ConfinementChoice::None),
        other => Err(usage_error(format!("--confinement {other:?}: use auto, bubblewrap or none"))),
    }
}

fn number<T: std::str::FromStr>(value: &str) -> Result<T, SandboxError> {
    match value.parse() {
        Ok(n) => Ok(n),
        Err(_) => Err(usage_error(format!("{value:?} is not a positive whole number"))),
    }
}

/// A refused command line, shown with [`USAGE`].
fn usage_error(problem: impl Into<String>) -> SandboxError {
    SandboxError::Usage { problem: problem.into(), usage: USAGE }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_words(line: &str) -> Result<Command, SandboxError> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn options_are_read_and_defaults_hold() {
        let Command::Serve(o) = parse_words("--workspace /w").unwrap() else { panic!() };
        assert_eq!(
            (o.network, o.confinement, o.max_processes, o.memory_mib),
            (false, ConfinementChoice::Auto, 512, 2048)
        );
        let Command::Serve(o) = parse_words("--workspace /w --network").unwrap() else { panic!() };
        assert!(o.network);
        let line = "--workspace /w --no-network --confinement none --max-processes 9 --memory-mib 64 --python /p";
        let Command::Serve(o) = parse_words(line).unwrap() else { panic!() };
        assert_eq!(o.workspace, PathBuf::from("/w"));
        assert_eq!(
            (o.network, o.confinement, o.max_processes, o.memory_mib),
            (false, ConfinementChoice::None, 9, 64)
        );
        assert_eq!(o.python, Some(PathBuf::from("/p")));
        assert!(!o.allow_sdists, "wheels only unless asked");
        let Command::Serve(o) = parse_words("--workspace /w --allow-sdists").unwrap() else {
            panic!()
        };
        assert!(o.allow_sdists);
    }

    #[test]
    fn mistakes_are_usage_errors() {
        for line in [
            "",
            "--workspace",
            "--workspace /w --frobnicate",
            "--workspace /w --confinement maybe",
            "--workspace /w --memory-mib lots",
        ] {
            assert!(matches!(parse_words(line), Err(SandboxError::Usage { .. })), "{line}");
        }
        assert_eq!(parse_words("--help").unwrap(), Command::Help);
        assert_eq!(parse_words("--probe").unwrap(), Command::Probe);
        let Command::AdoptVenv(o) =
            parse_words("--adopt-venv --workspace /w --state-dir /s").unwrap()
        else {
            panic!("--adopt-venv is its own command")
        };
        assert_eq!((o.workspace, o.state_dir), ("/w".into(), Some("/s".into())));
    }
}
