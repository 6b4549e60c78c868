//! `preflight-sandbox`: the code-sandbox MCP server over stdio (usage in the library's docs).

use preflight_sandbox::adopt;
use preflight_sandbox::cli::{self, Command};
use preflight_sandbox::confine::Jail;
use preflight_sandbox::venv::{Python, Records};
use preflight_sandbox::{Sandbox, SandboxError, SandboxServer};
use rmcp::ServiceExt;
use std::process::ExitCode;
use std::sync::Arc;

fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some(preflight_sandbox::prepared::HELPER_ARG) {
        return preflight_sandbox::prepared::exec_request();
    }
    let options = match cli::parse(std::env::args().skip(1)) {
        Ok(Command::Serve(options)) => options,
        Ok(Command::AdoptVenv(options)) => return adopt_venv(&options),
        Ok(Command::Help) => {
            println!("{}", cli::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Command::Probe) => {
            println!("{}", preflight_sandbox::confine::probe_report());
            return ExitCode::SUCCESS;
        }
        Err(error) => return fail(&error),
    };
    let workspace = match workspace_of(&options) {
        Ok(dir) => dir,
        Err(error) => return fail(&error),
    };
    let jail = match Jail::detect(&options, workspace) {
        Ok(jail) => jail,
        Err(error) => return fail(&error),
    };
    eprintln!("preflight-sandbox: {}", jail.describe());
    let server_env = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect();
    let python = Python::resolve(options.python.clone());
    let records = Records::resolve(options.state_dir.clone());
    let sandbox = Sandbox::new(jail, python, records, server_env, options.allow_sdists);
    let runtime =
        tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let runtime = match runtime {
        Ok(runtime) => runtime,
        Err(e) => return fail(&SandboxError::io("starting the async runtime", e)),
    };
    match runtime.block_on(serve(SandboxServer(Arc::new(sandbox)))) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("preflight-sandbox: {message}");
            ExitCode::FAILURE
        }
    }
}

/// The workspace folder, canonical.
fn workspace_of(options: &cli::Options) -> Result<std::path::PathBuf, SandboxError> {
    match options.workspace.canonicalize() {
        Ok(dir) if dir.is_dir() => Ok(dir),
        Ok(dir) => Err(SandboxError::Workspace {
            path: dir,
            source: std::io::ErrorKind::NotADirectory.into(),
        }),
        Err(source) => Err(SandboxError::Workspace { path: options.workspace.clone(), source }),
    }
}

/// `--adopt-venv`: one JSON line, `{"adopted": true}` or `{"adopted": false, "reason": …}`
/// (exit 1); nothing changes unless the venv is adopted.
fn adopt_venv(options: &cli::Options) -> ExitCode {
    let workspace = match workspace_of(options) {
        Ok(dir) => dir,
        Err(error) => return fail(&error),
    };
    let python = Python::resolve(options.python.clone());
    let records = Records::resolve(options.state_dir.clone());
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(e) => return fail(&SandboxError::io("starting the async runtime", e)),
    };
    let venv = preflight_sandbox::venv::venv_dir(&workspace);
    let adoption = adopt::adopt(&venv, &workspace, &python, &records);
    let (line, code) = match runtime.block_on(adoption) {
        Ok(()) => (serde_json::json!({"adopted": true}), ExitCode::SUCCESS),
        Err(error) => {
            (serde_json::json!({"adopted": false, "reason": error.to_string()}), ExitCode::FAILURE)
        }
    };
    println!("{line}");
    code
}

/// Serves MCP on stdin/stdout until the client closes the connection.
async fn serve(server: SandboxServer) -> Result<(), Box<dyn std::error::Error>> {
    let service = server.serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

fn fail(error: &SandboxError) -> ExitCode {
    eprintln!("preflight-sandbox: {error}");
    ExitCode::from(2)
}
