//! The `preflight` command: developer tools over the engine (and, later, the headless server).

use std::io::{Read, Write};
use std::process::ExitCode;

use anyhow::Context;
use preflight_engine::planner::parse_planner_reply;

const USAGE: &str = "\
usage: preflight <command>

commands:
  parse-planner-output   read a planner reply on stdin, print what the parser makes of it
                         as JSON: {\"kind\":\"questions\"|\"plan\"|\"none\",\"questions\"?,\"plan\"?,\"text\"}
  help                   show this text";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("parse-planner-output") if args.len() == 1 => parse_planner_output(),
        Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            Ok(())
        }
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("preflight: {error:#}");
            ExitCode::FAILURE
        }
    }
}

/// Reads all of stdin (invalid UTF-8 is replaced, not refused: the parser is tolerant).
fn parse_planner_output() -> anyhow::Result<()> {
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes).context("reading stdin")?;
    let reply = String::from_utf8_lossy(&bytes);
    let json = parse_planner_reply(&reply).to_json();
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut stdout, &json).context("writing stdout")?;
    writeln!(stdout).context("writing stdout")?;
    Ok(())
}
